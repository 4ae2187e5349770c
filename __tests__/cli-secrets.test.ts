/**
 * What the `docket` CLI does with secrets: a dashboard token given to it is never printed (only
 * where it came from), a generated one is; a password in --url, which every user of the machine
 * reads in the process list, is warned about; and a bad URL is named by where it came from.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main, type Io } from '../lib/surfaces/cli/main';
import { testUrl, uniquePrefix, useRedis } from './support/harness';

const redis = useRedis();

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI with `args` and `env`, both streams captured. */
async function cli(args: string[], env: Io['env'] = {}): Promise<Result> {
  const result = { code: -1, stdout: '', stderr: '' };
  const io: Io = { stdout: { write: (s: string) => (result.stdout += s) }, stderr: { write: (s: string) => (result.stderr += s) }, env };
  result.code = await main(args, io);
  return result;
}

/**
 * Runs `docket dashboard` with `args` and `env` until its banner is out; hands `check` the URL it
 * printed and everything it wrote, then stops it.
 */
async function dashboard(args: string[], env: Io['env'], check: (url: URL, out: Result) => Promise<void>): Promise<void> {
  const s = await redis.scheduler();
  const out = { code: -1, stdout: '', stderr: '' };
  const stop = new AbortController();
  let printed!: () => void;
  const banner = new Promise<void>((resolve) => (printed = resolve));
  const io: Io = {
    stdout: { write: (text: string) => ((out.stdout += text), printed()) },
    stderr: { write: (text: string) => (out.stderr += text) },
    env: { REDIS_URL: testUrl(), ...env },
    signal: stop.signal,
  };
  const done = main(['dashboard', '--port', '0', '--prefix', s.prefix, ...args], io);
  const exited = done.then((code) => Promise.reject(new Error(`exited ${code}: ${out.stderr}`)));
  await Promise.race([banner, exited]);
  try {
    const json = args.includes('--json');
    const url = json ? (JSON.parse(out.stdout) as { url: string }).url : /^docket dashboard: (\S+)$/m.exec(out.stdout)![1];
    await check(new URL(url), out);
  } finally {
    stop.abort();
    out.code = await done;
  }
  expect(out.code).toBe(0);
}

describe('docket dashboard with a token given', () => {
  const token = 'a-secret-token-of-28-chars!!';
  const dir = mkdtempSync(join(tmpdir(), 'docket-secrets-'));
  const file = join(dir, 'token');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });

  /** The dashboard asks for the token, takes it, and nothing it printed holds it. */
  const notPrinted = (from: string) => async (url: URL, out: Result) => {
    expect(out.stdout + out.stderr).not.toContain(token);
    expect(out.stdout).toContain(from);
    expect(url.searchParams.has('token')).toBe(false);
    expect((await fetch(new URL('/api/overview', url))).status).toBe(401);
    expect((await fetch(new URL('/api/overview', url), { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
  };

  it('does not print a token from $DOCKET_DASHBOARD_TOKEN, only where it came from', () =>
    dashboard([], { DOCKET_DASHBOARD_TOKEN: token }, notPrinted('token: from $DOCKET_DASHBOARD_TOKEN (not printed)')));

  it('does not print a token from --token-file, only the file', () => dashboard(['--token-file', file], {}, notPrinted(`token: from --token-file '${file}'`)));

  it('does not print a token from --token either', () => dashboard(['--token', token], {}, notPrinted('token: from --token')));

  it('keeps the token out of --json too, saying where it came from', () =>
    dashboard(['--json'], { DOCKET_DASHBOARD_TOKEN: token }, async (url, out) => {
      await notPrinted('"tokenFrom": "$DOCKET_DASHBOARD_TOKEN"')(url, out);
      expect(JSON.parse(out.stdout)).toMatchObject({ tokenGenerated: false, tokenFrom: '$DOCKET_DASHBOARD_TOKEN' });
    }));

  it('prints a generated token, which nothing else tells', () =>
    dashboard(['--host', '0.0.0.0', '--json'], {}, async (url, out) => {
      const generated = url.searchParams.get('token');
      expect(generated).toMatch(/^[\x21-\x7e]{16,}$/);
      expect(JSON.parse(out.stdout)).toMatchObject({ tokenGenerated: true, tokenFrom: null });
      const local = `http://127.0.0.1:${url.port}/api/overview`;
      expect((await fetch(local)).status).toBe(401);
      expect((await fetch(local, { headers: { authorization: `Bearer ${generated}` } })).status).toBe(200);
    }));
});

describe('a password in the Redis URL', () => {
  const WARNING = /^docket: warning: --url carries a password, which every user of this machine can read in the process list \(ps\); set REDIS_URL instead\n/;

  it('is warned about on stderr when --url carries it, without repeating it', async () => {
    for (const url of ['redis://user:hunter2-secret@127.0.0.1:1', 'redis://:hunter2-secret@127.0.0.1:1/0', 'rediss://u:hunter2-secret@127.0.0.1:1']) {
      const result = await cli(['stats', '--url', url, '--prefix', uniquePrefix()]);
      expect(result).toMatchObject({ code: 1, stdout: '', stderr: expect.stringMatching(WARNING) });
      expect(result.stderr).not.toContain('hunter2');
    }
    // The warning does not change what the command does or prints on stdout.
    const s = await redis.scheduler();
    await s.put('t', { queue: 'q' });
    const withPassword = testUrl().replace('redis://', 'redis://default:any-password@');
    const stats = await cli(['stats', '--json', '--url', withPassword, '--prefix', s.prefix]);
    expect(stats).toMatchObject({ code: 0, stderr: expect.stringMatching(WARNING) });
    expect(JSON.parse(stats.stdout).queues[0]).toMatchObject({ queue: 'q', ready: 1 });
  });

  it('is taken from REDIS_URL without a warning, and none is given for a --url without one', async () => {
    const s = await redis.scheduler();
    const withPassword = testUrl().replace('redis://', 'redis://default:any-password@');
    expect(await cli(['stats', '--prefix', s.prefix], { REDIS_URL: withPassword })).toMatchObject({ code: 0, stderr: '' });
    expect(await cli(['stats', '--url', testUrl(), '--prefix', s.prefix])).toMatchObject({ code: 0, stderr: '' });
    expect(await cli(['stats', '--url', testUrl().replace('redis://', 'redis://default@'), '--prefix', s.prefix])).toMatchObject({ code: 0, stderr: '' });
  });

  it('is named in --help, which points to REDIS_URL', async () => {
    const help = (await cli(['help'])).stdout;
    // Words wrapped to 100 columns: read as one line.
    expect(help.replace(/\s+/g, ' ')).toMatch(/--url <redis-url> Redis to use \(default \$REDIS_URL[^]*process list: give a password in \$REDIS_URL instead /);
  });
});

describe('a bad Redis URL', () => {
  it('is named as REDIS_URL when it came from there, and as --url when from the flag', async () => {
    const fromEnv = await cli(['stats'], { REDIS_URL: 'http://user:hunter2@localhost' });
    expect(fromEnv).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^docket: invalid REDIS_URL: expected a redis:\/\/ or rediss:\/\/ URL\n/) });
    expect(fromEnv.stderr).not.toContain('hunter2');
    const fromFlag = await cli(['stats', '--url', 'http://localhost'], { REDIS_URL: testUrl() });
    expect(fromFlag).toMatchObject({ code: 2, stderr: expect.stringMatching(/^docket: invalid --url: expected a redis:\/\//) });
  });

  it('in REDIS_URL does not stop help or --version, which connect to nothing', async () => {
    expect(await cli(['help'], { REDIS_URL: 'nonsense' })).toMatchObject({ code: 0, stderr: '' });
    expect(await cli(['--version'], { REDIS_URL: 'nonsense' })).toMatchObject({ code: 0, stderr: '' });
  });
});
