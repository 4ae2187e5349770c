import { newToken, newWorkerId } from '../lib/redis/context';
import { ValidationError } from '../lib/types/errors';
import { useRedis } from './support/harness';

const redis = useRedis();

describe('ids', () => {
  it('names a worker by host, pid and a random part', () => {
    const id = newWorkerId();
    expect(id).toMatch(new RegExp(`^.+:${process.pid}:[0-9a-f]{8}$`));
    expect(newWorkerId()).not.toBe(id);
  });

  it('makes a fresh 64-bit lease token each time', () => {
    const tokens = new Set(Array.from({ length: 1000 }, newToken));
    expect(tokens.size).toBe(1000);
    for (const t of tokens) expect(t).toMatch(/^[0-9a-f]{16}$/);
  });
});

describe('queue defaults', () => {
  it('uses the scheduler queue when a call names none, and the named one otherwise', async () => {
    const s = await redis.scheduler({ queue: 'home' });
    expect((await s.put('a')).queue).toBe('home');
    expect((await s.put('a', { queue: 'away' })).queue).toBe('away');
    expect(await s.stats()).toMatchObject({ ready: 1 });
    expect(await s.stats({ queue: 'away' })).toMatchObject({ ready: 1 });
    await expect(s.get('x', { queue: '' })).rejects.toBeInstanceOf(ValidationError);
  });
});
