/**
 * No secret in a message: whatever the URL looks like (unencoded / # ? @ in the password, a bad
 * port, a malformed escape, a server that refuses the password or is not there), no error, log
 * line, CLI line or inspect() of a docket object contains the password.
 */
import { inspect } from 'node:util';
import { createScheduler, DocketError, ValidationError, type Logger } from '../lib';
import { main } from '../lib/surfaces/cli/main';
import { redact } from '../lib/redis/connection';
import { freePort } from './support/redis-server';
import { testUrl, uniquePrefix, useRedis } from './support/harness';

const redis = useRedis();
const SECRET = 'S3cretPW';
const host = () => new URL(testUrl()).host;

/** URL shapes that have leaked, each with the password holding SECRET. */
async function nastyUrls(): Promise<Record<string, string>> {
  const dead = `127.0.0.1:${await freePort()}`;
  return {
    'unencoded /': `redis://admin:Sup3r/${SECRET}@${host()}`,
    'unencoded @': `redis://admin:Sup3r@${SECRET}@${host()}`,
    'unencoded #': `redis://admin:Sup3r#${SECRET}@${host()}`,
    'unencoded ?': `redis://admin:Sup3r?${SECRET}@${host()}`,
    'a numeric password before /': `redis://admin:1234/${SECRET}@${host()}`,
    'a bad port': `redis://admin:${SECRET}@127.0.0.1:99999`,
    'a malformed escape': `redis://admin:${SECRET}%zz@${host()}`,
    'a wrong password': `redis://admin:${SECRET}@${host()}`,
    'nobody listening': `redis://admin:${SECRET}@${dead}`,
    'TLS to a plain port': `rediss://admin:${SECRET}@${host()}`,
    'no host': `redis://admin:${SECRET}`,
  };
}

function logger(lines: string[]): Logger {
  const log = (obj: Record<string, unknown>, msg: string) => void lines.push(`${msg} ${inspect(obj, { depth: Infinity })}`);
  return { debug: log, info: log, warn: log, error: log };
}

const shown = (value: unknown) => `${inspect(value, { depth: Infinity, showHidden: true })} ${String((value as Error)?.stack)}`;

describe('secrets', () => {
  it('createScheduler rejects every nasty URL with a DocketError that nowhere holds the password', async () => {
    for (const [name, url] of Object.entries(await nastyUrls())) {
      const lines: string[] = [];
      const err = await createScheduler({ url, logger: logger(lines), warnings: { aof: false } }).then(
        (s) => s.close().then(() => new Error(`${name}: connected`)),
        (e: unknown) => e,
      );
      expect([name, err instanceof DocketError]).toEqual([name, true]);
      expect([name, shown(err).includes(SECRET)]).toEqual([name, false]);
      expect([name, lines.join('\n').includes(SECRET)]).toEqual([name, false]);
    }
  }, 30_000);

  it('names the URL option in a ValidationError for a URL node-redis would misread', async () => {
    const urls = await nastyUrls();
    for (const name of ['unencoded /', 'unencoded #', 'unencoded ?', 'a numeric password before /', 'a bad port', 'a malformed escape', 'no host']) {
      const err = await createScheduler({ url: urls[name] }).catch((e: unknown) => e);
      expect([name, err instanceof ValidationError && err.field]).toEqual([name, 'options.url']);
    }
    const err = await createScheduler({ cluster: [urls['unencoded /']] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).field).toBe('options.cluster[0]');
    expect(shown(err)).not.toContain(SECRET);
  });

  it('checks REDIS_URL as it checks options.url', async () => {
    const saved = process.env.REDIS_URL;
    process.env.REDIS_URL = (await nastyUrls())['unencoded /'];
    try {
      const err = await createScheduler().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).field).toBe('REDIS_URL');
      expect(shown(err)).not.toContain(SECRET);
    } finally {
      if (saved === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = saved;
    }
  });

  it('leaves REDIS_URL, however bad, unread when a client of the caller is given', async () => {
    const client = await redis.raw();
    const saved = process.env.REDIS_URL;
    process.env.REDIS_URL = (await nastyUrls())['unencoded /'];
    try {
      const docket = await createScheduler({ client, prefix: uniquePrefix(), warnings: { aof: false } });
      expect((await docket.put({ moot: true })).added).toBe(true);
      await docket.obliterate();
      await docket.close();
    } finally {
      if (saved === undefined) delete process.env.REDIS_URL;
      else process.env.REDIS_URL = saved;
    }
  });

  it('the CLI prints one line without the password for each of them', async () => {
    for (const [name, url] of Object.entries(await nastyUrls())) {
      let out = '';
      const io = { stdout: { write: (s: string) => (out += s) }, stderr: { write: (s: string) => (out += s) }, env: {} };
      const code = await main(['stats', '--url', url, '--timeout', '2000'], io);
      expect([name, code === 0]).toEqual([name, false]);
      expect([name, out.includes(SECRET)]).toEqual([name, false]);
      // A line saying what is wrong (and, for a bad URL, where to read the usage): no stack.
      expect([name, out.includes('unexpected error') || /^\s+at /m.test(out)]).toEqual([name, false]);
      expect([name, out.trim().split('\n').length <= 2]).toEqual([name, true]);
      if (process.env.SHOW_CLI) console.log(name, out);
    }
  }, 60_000);

  it('redact() hides the whole password whatever it holds', () => {
    for (const [url, expected] of [
      ['redis://admin:Sup3r/SecretPW@host:6379/0', 'redis://admin:***@host:6379/0'],
      ['redis://admin:p@ss@host', 'redis://admin:***@host'],
      ['redis://:pw@host', 'redis://:***@host'],
      ['redis://token@host', 'redis://***@host'],
      ['redis://host:6379', 'redis://host:6379'],
      ['redis://admin:Sup3r/SecretPW', 'redis://***'],
      ['not a url', '(not a URL)'],
    ]) {
      expect(redact(url)).toBe(expected);
    }
  });

  it('inspect() of a scheduler, a worker and a task shows no password', async () => {
    const raw = await redis.raw();
    await raw.sendCommand(['ACL', 'SETUSER', 'inspected', 'on', `>${SECRET}`, '~*', '&*', '+@all']);
    const url = testUrl().replace('redis://', `redis://inspected:${SECRET}@`);
    const s = await createScheduler({ url, prefix: uniquePrefix('inspected'), warnings: { aof: false } });
    try {
      const worker = s.work(async () => {});
      await s.put('x');
      expect(shown(s)).not.toContain(SECRET);
      expect(shown(worker)).not.toContain(SECRET);
      expect(shown(s)).toContain('inspected');
      await worker.close();
    } finally {
      await s.close();
      await raw.sendCommand(['ACL', 'DELUSER', 'inspected']);
    }
  });
});
