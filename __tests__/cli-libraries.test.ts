/**
 * `docket libraries` (lib/surfaces/cli/libraries.ts, lib/features/libraries.ts), run in-process
 * through main() on a redis-server of its own (its FUNCTION DELETEs must not reach the shared one):
 * the current library, an old one no connection names and an old one a connection names, listed
 * with their connection counts; --remove-unused deletes only the unnamed old one.
 */
import { createClient } from 'redis';
import { main } from '../lib/surfaces/cli/main';
import { parseLibraryName } from '../lib/features/libraries';
import { docketLibrary } from '../lib/redis/library';
import { startRedis, type RedisServer } from './support/redis-server';
import { uniquePrefix } from './support/harness';

const UNNAMED = 'docket_0_0_9_aaaaaaaaaaaa';
const NAMED = 'docket_0_0_8_bbbbbbbbbbbb';

/** A library of one function, as an older docket would have loaded it. */
const source = (name: string) => `#!lua name=${name}\nredis.register_function('${name}_x', function() return 1 end)`;

let server: RedisServer;
let admin: ReturnType<typeof createClient>;
let user: ReturnType<typeof createClient>;

beforeAll(async () => {
  server = await startRedis();
  admin = createClient({ url: server.url });
  // A process of the older version, still running: its connection carries its library's name.
  user = createClient({ url: server.url });
  await Promise.all([admin.connect(), user.connect()]);
  await user.sendCommand(['CLIENT', 'SETNAME', `docket:${NAMED}`]);
});

afterAll(async () => {
  await Promise.all([admin.disconnect(), user.disconnect()]);
  await server.stop();
});

async function cli(args: string[], stdin?: NodeJS.ReadableStream) {
  const result = { code: -1, stdout: '', stderr: '' };
  const io = { stdout: { write: (s: string) => (result.stdout += s) }, stderr: { write: (s: string) => (result.stderr += s) }, env: {}, stdin };
  result.code = await main([...args, '--url', server.url, '--prefix', uniquePrefix()], io);
  return result;
}

/** The table's row of `library`, split into cells. */
function row(text: string, library: string): string[] {
  const line = text.split('\n').find((l) => l.split(/\s{2,}/)[1] === library);
  if (!line) throw new Error(`no row ${library} in:\n${text}`);
  return line.split(/\s{2,}/);
}

async function loaded(): Promise<string[]> {
  const list = (await admin.sendCommand(['FUNCTION', 'LIST', 'LIBRARYNAME', 'docket_*'])) as unknown[][];
  return list.map((library) => String(library[1])).sort();
}

describe('docket libraries', () => {
  const own = docketLibrary().name;

  beforeEach(async () => {
    await admin.sendCommand(['FUNCTION', 'FLUSH']);
    for (const name of [UNNAMED, NAMED]) await admin.sendCommand(['FUNCTION', 'LOAD', source(name)]);
  });

  it('lists every docket library with its version, functions and the connections that name it', async () => {
    const listed = await cli(['libraries']);
    expect(listed).toMatchObject({ code: 0, stderr: '' });
    const node = `${new URL(server.url).hostname}:${server.port}`;
    const ownRow = row(listed.stdout, own);
    expect(ownRow[0]).toBe(node);
    expect(ownRow[2]).toBe(parseLibraryName(own).version);
    expect(Number(ownRow[4])).toBeGreaterThan(10);
    // The CLI's own connection names it.
    expect(Number(ownRow[5])).toBeGreaterThanOrEqual(1);
    expect(ownRow[6]).toBe('this docket');
    expect(row(listed.stdout, UNNAMED)).toEqual([node, UNNAMED, '0.0.9', 'aaaaaaaaaaaa', '1', '0', 'unused']);
    expect(row(listed.stdout, NAMED)).toEqual([node, NAMED, '0.0.8', 'bbbbbbbbbbbb', '1', '1', '-']);
    expect(listed.stdout).toContain('1 unused docket library: docket libraries --remove-unused deletes them\n');

    const json = JSON.parse((await cli(['libraries', '--json'])).stdout) as { libraries: Array<Record<string, unknown>> };
    expect(json.libraries.map((l) => l.name).sort()).toEqual([NAMED, UNNAMED, own].sort());
    expect(json.libraries.find((l) => l.name === NAMED)).toEqual({ node, name: NAMED, version: '0.0.8', hash: 'bbbbbbbbbbbb', functions: 1, own: false, connections: 1 });
  });

  it('--remove-unused --yes deletes only the library no connection names', async () => {
    const removed = await cli(['libraries', '--remove-unused', '--yes']);
    expect(removed).toMatchObject({ code: 0, stderr: '' });
    expect(removed.stdout).toBe(`removed ${UNNAMED} from ${new URL(server.url).hostname}:${server.port}\nremoved 1 docket library\n`);
    expect(await loaded()).toEqual([NAMED, own].sort());
    // Nothing left to delete: nothing is asked.
    expect(await cli(['libraries', '--remove-unused'])).toMatchObject({ code: 0, stdout: 'no unused docket library: nothing was deleted\n' });
  });

  it('asks first, naming the count, and deletes nothing on a no', async () => {
    const { Readable } = await import('node:stream');
    const refused = await cli(['libraries', '--remove-unused'], Readable.from(['n\n']));
    expect(refused.stderr).toContain('Delete the 1 unused docket library (no connection names them)? [y/N] ');
    expect(refused).toMatchObject({ code: 1 });
    expect(await loaded()).toEqual([NAMED, UNNAMED, own].sort());
    // Without a stdin to ask on, --yes is required.
    expect(await cli(['libraries', '--remove-unused'])).toMatchObject({ code: 2 });
  });

  it('says so when the server holds no docket library but its own', async () => {
    await admin.sendCommand(['FUNCTION', 'FLUSH']);
    const listed = await cli(['libraries', '--json']);
    expect((JSON.parse(listed.stdout) as { libraries: Array<{ name: string; own: boolean }> }).libraries).toEqual([expect.objectContaining({ name: own, own: true })]);
  });
});

describe('parseLibraryName', () => {
  it('reads the version and hash a library name carries, and nulls for another name', () => {
    expect(parseLibraryName('docket_0_1_0_0ffa5586e405')).toEqual({ version: '0.1.0', hash: '0ffa5586e405' });
    expect(parseLibraryName('docket_1_0_0_rc_1_0ffa5586e405')).toEqual({ version: '1.0.0-rc.1', hash: '0ffa5586e405' });
    expect(parseLibraryName('docket_custom')).toEqual({ version: null, hash: null });
  });
});
