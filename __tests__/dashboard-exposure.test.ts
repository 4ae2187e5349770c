/**
 * The dashboard on an address other than loopback, on real servers against the test Redis: with
 * no token given, serveDashboard and `docket dashboard` generate one and refuse every request
 * without it; `insecureNoToken` (`--insecure-no-token`) is the only way to serve without one, and
 * warns; a bad value for it starts nothing. The servers bind 0.0.0.0 and are reached through
 * 127.0.0.1 (a non-loopback bind has no Host check: the token is what keeps others out).
 */
import net, { type AddressInfo } from 'node:net';
import { ValidationError } from '../lib';
import { main, type Io } from '../lib/surfaces/cli/main';
import { serveDashboard } from '../lib/surfaces/dashboard';
import type { DashboardServer, ServeOptions } from '../lib/types/dashboard';
import { eventually, testUrl, useRedis } from './support/harness';

const redis = useRedis();

/** The server's URL with its host swapped for 127.0.0.1, which a 0.0.0.0 bind also answers on. */
function local(url: string): URL {
  const u = new URL(url);
  u.hostname = '127.0.0.1';
  return u;
}

/** A port nothing listens on now: taken from the OS, then released. */
async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether anything accepts a connection on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function withServer(options: ServeOptions, check: (served: DashboardServer, s: Awaited<ReturnType<typeof redis.scheduler>>) => Promise<void>): Promise<void> {
  const s = await redis.scheduler();
  await s.put({ job: 1 }, { queue: 'mail' });
  const served = await serveDashboard(s, options);
  try {
    await check(served, s);
  } finally {
    await served.close();
  }
}

describe('serveDashboard on a non-loopback host', () => {
  it('generates a token when none is given, carries it in the url, and refuses every request without it', () =>
    withServer({ host: '0.0.0.0' }, async (served, s) => {
      expect(served.tokenGenerated).toBe(true);
      // newSecret(): 32 random bytes as base64url, within what the token option accepts.
      expect(served.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(served.url).toMatch(new RegExp(`^http://0\\.0\\.0\\.0:\\d+/\\?token=${served.token}$`));
      const base = local(served.url).origin;
      for (const path of ['/', '/api/overview', '/api/task?queue=mail&hash=x', '/?token=not-the-generated-token']) {
        const res = await fetch(`${base}${path}`, { redirect: 'manual' });
        expect(res.status).toBe(401);
        expect(await res.text()).not.toContain('"queues"');
      }
      expect((await fetch(`${base}/api/overview`, { headers: { authorization: 'Bearer a-guess-of-enough-length' } })).status).toBe(401);
      const pause = await fetch(`${base}/api/pause`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ queue: 'mail' }) });
      expect(pause.status).toBe(401);
      expect((await s.stats({ queue: 'mail' })).paused).toBe(false);

      const bearer = await fetch(`${base}/api/overview`, { headers: { authorization: `Bearer ${served.token}` } });
      expect(bearer.status).toBe(200);
      expect(((await bearer.json()) as { queues: Array<{ name: string }> }).queues.map((q) => q.name)).toEqual(['mail']);
    }));

  it('lets the url it returns open the page and act, through the cookie it sets', () =>
    withServer({ host: '0.0.0.0' }, async (served, s) => {
      const first = await fetch(local(served.url), { redirect: 'manual' });
      expect(first.status).toBe(303);
      const cookie = first.headers.get('set-cookie')!.split(';')[0];
      const page = await fetch(`${local(served.url).origin}/?queue=mail`, { headers: { cookie } });
      expect(page.status).toBe(200);
      const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1];
      const headers = { cookie, 'content-type': 'application/json', 'x-csrf-token': csrf };
      const pause = await fetch(`${local(served.url).origin}/api/pause`, { method: 'POST', headers, body: JSON.stringify({ queue: 'mail' }) });
      expect(pause.status).toBe(200);
      expect((await s.stats({ queue: 'mail' })).paused).toBe(true);
    }));

  it('generates a different token for each server', async () => {
    const s = await redis.scheduler();
    const [a, b] = await Promise.all([serveDashboard(s, { host: '0.0.0.0' }), serveDashboard(s, { host: '0.0.0.0' })]);
    try {
      expect(a.token).not.toBe(b.token);
      expect((await fetch(`${local(b.url).origin}/api/overview`, { headers: { authorization: `Bearer ${a.token}` } })).status).toBe(401);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('uses the token given, and generates none on loopback', async () => {
    await withServer({ host: '0.0.0.0', token: 'a-token-of-sixteen-chars' }, async (served) => {
      expect(served).toMatchObject({ token: 'a-token-of-sixteen-chars', tokenGenerated: false });
      expect(served.url).toMatch(/\/\?token=a-token-of-sixteen-chars$/);
    });
    await withServer({}, async (served) => {
      expect(served.tokenGenerated).toBe(false);
      expect(served.token).toBeUndefined();
      expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
      expect((await fetch(`${served.url}api/overview`)).status).toBe(200);
    });
  });

  it('serves without a token with insecureNoToken, and warns that it does', async () => {
    const warnings: string[] = [];
    await withServer({ host: '0.0.0.0', insecureNoToken: true, onWarning: (m) => warnings.push(m) }, async (served) => {
      expect(served.tokenGenerated).toBe(false);
      expect(served.token).toBeUndefined();
      expect(served.url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/$/);
      expect((await fetch(`${local(served.url).origin}/api/overview`)).status).toBe(200);
      expect(warnings).toEqual([expect.stringContaining(`on 0.0.0.0:${new URL(served.url).port} asks for no token: anyone who can reach that port`)]);
    });
    // On loopback it changes nothing, so there is nothing to warn of.
    await withServer({ insecureNoToken: true, onWarning: (m) => warnings.push(m) }, async () => {});
    expect(warnings).toHaveLength(1);
  });

  it('stops again when the warning cannot be delivered, rather than serve without a token unreported', async () => {
    const s = await redis.scheduler();
    const port = await freePort();
    const onWarning = () => {
      throw new Error('the log is gone');
    };
    await expect(serveDashboard(s, { host: '0.0.0.0', port, insecureNoToken: true, onWarning })).rejects.toThrow('the log is gone');
    expect(await listening(port)).toBe(false);
  });

  it('refuses a bad insecureNoToken, or one with a token, with a ValidationError naming it, and starts nothing', async () => {
    const s = await redis.scheduler();
    const port = await freePort();
    const cases: Array<[unknown, string]> = [
      [{ insecureNoToken: 'yes' }, 'options.insecureNoToken'],
      [{ insecureNoToken: 'false' }, 'options.insecureNoToken'],
      [{ insecureNoToken: 1 }, 'options.insecureNoToken'],
      [{ insecureNoToken: true, token: 'a-token-of-sixteen-chars' }, 'options.insecureNoToken'],
      [{ onWarning: 'stderr' }, 'options.onWarning'],
      [{ insecureNoTokens: true }, 'options.insecureNoTokens'],
    ];
    for (const [bad, field] of cases) {
      // A server that starts after all is closed again, so a failure here cannot leave one open.
      const refused = await serveDashboard(s, { host: '0.0.0.0', port, ...(bad as ServeOptions) }).then(
        (served) => served.close().then(() => new Error(`started on ${served.url}`)),
        (err: unknown) => err,
      );
      expect(refused).toBeInstanceOf(ValidationError);
      expect(refused).toMatchObject({ field, code: 'ERR_VALIDATION' });
      expect(await listening(port)).toBe(false);
    }
  });
});

describe('docket dashboard on a non-loopback host', () => {
  /** Runs `docket dashboard` until its banner is out; `stop()` ends it and resolves to its exit code. */
  async function start(args: string[]) {
    const s = await redis.scheduler();
    await s.put(1, { queue: 'mail' });
    const out = { stdout: '', stderr: '' };
    const abort = new AbortController();
    const io: Io = {
      stdout: { write: (text: string) => (out.stdout += text) },
      stderr: { write: (text: string) => (out.stderr += text) },
      env: { REDIS_URL: testUrl() },
      signal: abort.signal,
    };
    const done = main(['dashboard', '--port', '0', '--prefix', s.prefix, ...args], io);
    let exited = false;
    void done.then(() => (exited = true));
    await eventually(() => exited || /Press Ctrl-C to stop\.\n$|\n}\n$/.test(out.stdout));
    if (exited) throw new Error(`exited ${await done}: ${out.stderr}`);
    return { out, stop: () => (abort.abort(), done) };
  }

  it('generates a token, prints the url that carries it once, and says it was generated', async () => {
    const run = await start(['--host', '0.0.0.0']);
    try {
      const url = /^docket dashboard: (\S+)\n/.exec(run.out.stdout)![1];
      const token = new URL(url).searchParams.get('token')!;
      expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(run.out.stdout.split(token)).toHaveLength(2); // printed once
      expect(run.out.stdout).toMatch(/\nNo token was given for 0\.0\.0\.0, which is not loopback, so one was generated for this run/);
      expect(run.out.stderr).toBe('');
      const base = local(url).origin;
      expect((await fetch(`${base}/api/overview`)).status).toBe(401);
      expect((await fetch(`${base}/api/overview`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    } finally {
      expect(await run.stop()).toBe(0);
    }
  });

  it('says so under --json too', async () => {
    const run = await start(['--host', '0.0.0.0', '--json']);
    try {
      const doc = JSON.parse(run.out.stdout) as { url: string; tokenGenerated: boolean; warning: string | null };
      expect(doc).toMatchObject({ tokenGenerated: true, warning: null });
      expect(new URL(doc.url).searchParams.get('token')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    } finally {
      expect(await run.stop()).toBe(0);
    }
  });

  it('serves without a token with --insecure-no-token, and prints a warning', async () => {
    const run = await start(['--host', '0.0.0.0', '--insecure-no-token']);
    try {
      const url = /^docket dashboard: (\S+)\n/.exec(run.out.stdout)![1];
      expect(url).toMatch(/^http:\/\/0\.0\.0\.0:\d+\/$/);
      expect(run.out.stdout).toMatch(/\nWARNING: the docket dashboard on 0\.0\.0\.0:\d+ asks for no token: anyone who can reach that port can pause queues/);
      expect(run.out.stdout).not.toContain('generated');
      expect((await fetch(`${local(url).origin}/api/overview`)).status).toBe(200);
    } finally {
      expect(await run.stop()).toBe(0);
    }
  });

  it('refuses --insecure-no-token with a token from any source, before connecting', async () => {
    const cases: Array<[string[], Io['env']]> = [
      [['--token', 'a-token-of-twenty-chars'], {}],
      [[], { DOCKET_DASHBOARD_TOKEN: 'a-token-of-twenty-chars' }],
    ];
    for (const [args, env] of cases) {
      const out = { stdout: '', stderr: '' };
      const io: Io = { stdout: { write: (t: string) => (out.stdout += t) }, stderr: { write: (t: string) => (out.stderr += t) }, env };
      const code = await main(['dashboard', '--host', '0.0.0.0', '--insecure-no-token', ...args, '--url', 'redis://127.0.0.1:1'], io);
      expect({ code, ...out }).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^docket: dashboard: --insecure-no-token and a token .*: give one or the other\n/) });
      expect(out.stderr).not.toContain('a-token-of-twenty-chars');
    }
  });

  it('names the default and the opt-out in its help', async () => {
    let help = '';
    expect(await main(['help', 'dashboard'], { stdout: { write: (t: string) => (help += t) }, stderr: { write: () => {} }, env: {} })).toBe(0);
    // The help wraps at 100 columns: read it as one line of words.
    const words = help.replace(/\s+/g, ' ');
    expect(words).toMatch(/--insecure-no-token serve without a token on any --host/);
    expect(words).toMatch(/without one it generates one and prints, once, the URL that carries it/);
    expect(words).toMatch(/--host <address> address to bind .*any other asks for a token/);
  });
});
