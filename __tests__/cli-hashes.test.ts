/**
 * Short hashes in the CLI (lib/surfaces/hash-prefix.ts), run in-process through main() against the
 * test Redis: a unique prefix of 6 or more hex characters names its task, pending, dead or in the
 * done history, in every command that takes a hash; an ambiguous one is refused with
 * ERR_AMBIGUOUS_HASH and a few candidates; an unknown one is refused as an unknown hash is. Tasks
 * get hashes with a common head from a hash function of the test's own (SchedulerOptions.hash).
 */
import { createHash } from 'node:crypto';
import { AmbiguousHashError } from '../lib/types/errors';
import { resolveHash } from '../lib/surfaces/hash-prefix';
import { cli } from './support/cli';
import { useRedis } from './support/harness';

const redis = useRedis();

/** Hashes of 32 hex characters that all start with `head`. */
const headed = (head: string) => (identity: string) => `${head}${createHash('sha256').update(identity).digest('hex')}`.slice(0, 32);

describe('short hashes', () => {
  it('resolve to the one task they start, in every command that takes a hash', async () => {
    const s = await redis.scheduler();
    const [a, b, c, d] = await Promise.all(['a', 'b', 'c', 'd'].map(async (data) => (await s.put(data, { queue: 'q', delay: 60_000 })).hash));
    const short = (hash: string) => hash.slice(0, 8);
    const inspected = await cli(s.prefix, ['inspect', 'q', short(a), '--json']);
    expect(JSON.parse(inspected.stdout).task.hash).toBe(a);
    expect(await cli(s.prefix, ['reschedule', 'q', short(a), 'now'])).toMatchObject({ code: 0, stdout: expect.stringMatching(new RegExp(`^rescheduled ${a} in queue 'q' to `)) });
    expect((await s.get(a, { queue: 'q' }))!.state).toBe('ready');
    expect(await cli(s.prefix, ['priority', 'q', short(b), '7'])).toEqual({ code: 0, stdout: `moved ${b} in queue 'q' to priority level 7\n`, stderr: '' });
    expect(JSON.parse((await cli(s.prefix, ['result', 'q', short(c), '--json'])).stdout).outcome.hash).toBe(c);
    expect(await cli(s.prefix, ['cancel', 'q', short(d)])).toEqual({ code: 0, stdout: `cancelled ${d} in queue 'q'\n`, stderr: '' });
    expect(await s.get(d, { queue: 'q' })).toBeNull();
  });

  it('find dead tasks and the done history too', async () => {
    const s = await redis.scheduler();
    const { hash: dead } = await s.put('dies', { queue: 'q', maxAttempts: 1 });
    expect(await s.fail((await s.claim({ queue: 'q' }))!, { error: new Error('x') })).toBe('dead');
    expect(await cli(s.prefix, ['redrive', 'q', dead.slice(0, 6)])).toEqual({ code: 0, stdout: `redrove ${dead} in queue 'q': it is ready\n`, stderr: '' });
    await s.ack((await s.claim({ queue: 'q' }))!);
    const done = await cli(s.prefix, ['inspect', 'q', dead.slice(0, 6)]);
    expect(done).toMatchObject({ code: 0, stderr: '' });
    expect(done.stdout).toMatch(new RegExp(`^hash +${dead}\\n`, 'm'));
    expect(done.stdout).toMatch(/^state +done/m);
  });

  it('refuse an ambiguous prefix with a few candidates, and change nothing', async () => {
    const s = await redis.scheduler({ hash: headed('abcdef0') });
    const hashes = await Promise.all([1, 2, 3].map(async (data) => (await s.put(data, { queue: 'q' })).hash));
    const refused = await cli(s.prefix, ['cancel', 'q', 'abcdef']);
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: `docket: hash prefix abcdef is ambiguous: 3 tasks of queue 'q' start with it (${[...hashes].sort().join(', ')}); give more of the hash\n`,
    });
    expect((await s.stats({ queue: 'q' })).ready).toBe(3);
    const json = await cli(s.prefix, ['inspect', 'q', 'abcdef0', '--json']);
    expect(json).toMatchObject({ code: 1, stdout: '' });
    expect(JSON.parse(json.stderr).error).toMatchObject({ code: 'ERR_AMBIGUOUS_HASH', message: expect.stringContaining('3 tasks') });
    // Past five, five are listed and the rest said.
    await Promise.all([4, 5, 6].map((data) => s.put(data, { queue: 'q' })));
    expect((await cli(s.prefix, ['inspect', 'q', 'abcdef'])).stderr).toMatch(/ambiguous: more than 5 tasks of queue 'q' start with it \((abcdef0\w{25}, ){5}\.\.\.\)/);
  });

  it('refuse an unknown prefix as an unknown hash, take one under 6 characters as given, and let a whole short hash win', async () => {
    const s = await redis.scheduler({ hash: (identity) => (identity.includes('short') ? 'abcdef12' : `abcdef12${headed('')(identity).slice(8)}`) });
    const { hash: whole } = await s.put('short', { queue: 'q' });
    const { hash: longer } = await s.put('long', { queue: 'q' });
    expect(whole).toBe('abcdef12');
    expect(longer.startsWith('abcdef12')).toBe(true);
    expect(JSON.parse((await cli(s.prefix, ['inspect', 'q', 'abcdef12', '--json'])).stdout).task.hash).toBe(whole);
    expect(await cli(s.prefix, ['inspect', 'q', 'fedcba'])).toEqual({ code: 1, stdout: '', stderr: "docket: no task fedcba in queue 'q'\n" });
    expect(await cli(s.prefix, ['cancel', 'q', 'abcde'])).toEqual({ code: 1, stdout: '', stderr: "docket: no task abcde in queue 'q'\n" });
    expect((await s.stats({ queue: 'q' })).ready).toBe(2);
  });

  it('refuse a prefix in a queue too large to search within the bounds, rather than search without end', async () => {
    const s = await redis.scheduler();
    // Payloads long enough that Redis keeps the hash as a table (a small one is a listpack, scanned in one step).
    const hashes = (await s.putMany(Array.from({ length: 300 }, (_, i) => ({ data: `${i}${'x'.repeat(2000)}`, options: { queue: 'q' } })))).map((r) => r.hash);
    const prefix = hashes[0].slice(0, 10);
    expect(await resolveHash(s, 'q', prefix)).toBe(hashes[0]);
    // Two steps of 10 fields cannot cover 300 tasks: the one match may have a twin not yet seen.
    const refused = await resolveHash(s, 'q', prefix, { steps: 2, fields: 10 }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AmbiguousHashError);
    expect(refused).toMatchObject({ code: 'ERR_AMBIGUOUS_HASH', searched: false, message: expect.stringContaining("queue 'q' has too many tasks to search them all") });
  });
});
