/**
 * How the CLI fails (lib/surfaces/cli/failure.ts), run in-process through main() against the test
 * Redis: under --json every error is one JSON line on stderr with its code, the exit codes are the
 * same as without it, and a refusal the library words for API users names the CLI's flag instead.
 */
import { cli } from './support/cli';
import { Readable } from 'node:stream';
import { keysUnder, testUrl, uniquePrefix, useRedis } from './support/harness';
import { main } from '../lib/surfaces/cli/main';

const redis = useRedis();

/** stderr as the one JSON line it must be under --json. */
function jsonError(stderr: string): { code: string; message: string } {
  expect(stderr).toMatch(/^\{[^\n]*\}\n$/);
  const doc = JSON.parse(stderr) as { error: { code: string; message: string } };
  expect(Object.keys(doc)).toEqual(['error']);
  expect(Object.keys(doc.error)).toEqual(['code', 'message']);
  return doc.error;
}

describe('errors under --json', () => {
  it('prints bad usage as one JSON line with ERR_USAGE, exit 2, and writes nothing', async () => {
    const raw = await redis.raw();
    const prefix = uniquePrefix();
    for (const args of [
      ['stats', '--verbose', '--json'],
      ['--json', 'list', 'q'],
      ['inspect', 'q', '--json'],
    ]) {
      const result = await cli(prefix, args);
      expect(result).toMatchObject({ code: 2, stdout: '' });
      expect(jsonError(result.stderr)).toMatchObject({ code: 'ERR_USAGE', message: expect.stringMatching(/^(Unknown option '--verbose'|list: missing --state|inspect: missing <hash>)/) });
    }
    expect(await keysUnder(raw, prefix)).toEqual([]);
  });

  it("prints a missing task with ERR_TARGET, a refusal with the library's code, and a bad option with ERR_VALIDATION", async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    await s.claim({ queue: 'q' });
    const missing = await cli(s.prefix, ['cancel', 'q', 'f'.repeat(32), '--json']);
    expect(missing).toMatchObject({ code: 1, stdout: '' });
    expect(jsonError(missing.stderr)).toEqual({ code: 'ERR_TARGET', message: `no task ${'f'.repeat(32)} in queue 'q'` });
    const active = await cli(s.prefix, ['obliterate', 'q', '--yes', '--json']);
    expect(active).toMatchObject({ code: 1, stdout: '' });
    expect(jsonError(active.stderr)).toEqual({ code: 'ERR_QUEUE_ACTIVE', message: 'queue q has 1 active task: stop its workers first, or pass --force' });
    const prefix = await cli('a b', ['stats', '--json']);
    expect(prefix).toMatchObject({ code: 2, stdout: '' });
    expect(jsonError(prefix.stderr)).toMatchObject({ code: 'ERR_VALIDATION', message: expect.stringMatching(/^invalid --prefix: /) });
  });

  it('prints an unreachable Redis with ERR_CONNECTION and exit 1', async () => {
    const result = await cli(uniquePrefix(), ['stats', '--json'], 'redis://127.0.0.1:1');
    expect(result).toMatchObject({ code: 1, stdout: '' });
    expect(jsonError(result.stderr)).toMatchObject({ code: 'ERR_CONNECTION', message: expect.stringMatching(/^cannot reach Redis at redis:\/\/127\.0\.0\.1:1: /) });
  });

  it('stands on a line of its own after a confirmation answered no', async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    const result = { code: -1, stdout: '', stderr: '' };
    const io = { stdout: { write: (t: string) => (result.stdout += t) }, stderr: { write: (t: string) => (result.stderr += t) }, env: {}, stdin: Readable.from(['n\n']) };
    result.code = await main(['clean', 'q', '--state', 'ready', '--json', '--url', testUrl(), '--prefix', s.prefix], io);
    expect(result).toMatchObject({ code: 1, stdout: '' });
    const [question, line, end] = result.stderr.split('\n');
    expect(question).toBe("Delete the 1 ready task of queue 'q'? [y/N] ");
    expect(end).toBe('');
    expect(jsonError(`${line}\n`)).toEqual({ code: 'ERR_RUN', message: 'not confirmed: nothing was deleted' });
    expect((await s.stats({ queue: 'q' })).ready).toBe(1);
  });

  it('stays plain text without --json', async () => {
    const result = await cli(uniquePrefix(), ['stats', '--verbose']);
    expect(result).toEqual({ code: 2, stdout: '', stderr: "docket: Unknown option '--verbose'.\nRun 'docket help' for usage.\n" });
  });
});

describe('refusals name the CLI flag', () => {
  it("says --force, not the API's force: true, when obliterate is refused", async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    await s.claim({ queue: 'q' });
    const refused = await cli(s.prefix, ['obliterate', 'q', '--yes']);
    expect(refused).toEqual({ code: 1, stdout: '', stderr: 'docket: queue q has 1 active task: stop its workers first, or pass --force\n' });
    expect((await s.stats({ queue: 'q' })).active).toBe(1);
  });

  it('names an option the library refuses by its flag (--older-than, not options.olderThan)', async () => {
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    // Past what clean() takes as a span: the CLI forwards it, the library refuses it.
    const refused = await cli(s.prefix, ['clean', 'q', '--state', 'ready', '--older-than', '9999999999d', '--yes']);
    expect(refused).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^docket: invalid --older-than: /) });
    expect(refused.stderr).not.toMatch(/olderThan|options\./);
    expect((await s.stats({ queue: 'q' })).ready).toBe(1);
  });

  it('names DOCKET_PREFIX when the prefix came from it', async () => {
    const result = { code: -1, stderr: '' };
    const io = { stdout: { write: () => true }, stderr: { write: (t: string) => (result.stderr += t) }, env: { DOCKET_PREFIX: '{x}' } };
    result.code = await main(['stats', '--url', 'redis://127.0.0.1:1'], io);
    expect(result).toEqual({ code: 2, stderr: expect.stringMatching(/^docket: invalid DOCKET_PREFIX: /) });
  });
});
