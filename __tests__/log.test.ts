/**
 * Logging: a pino-shaped logger receives docket's records; without one, docket writes nothing.
 */
import { ValidationError, type Logger } from '../lib';
import { eventually, useRedis } from './support/harness';

const redis = useRedis();

/** A logger of the shape pino has, whose methods need `this` (as pino's do). */
class Recorder implements Logger {
  readonly records: Array<{ level: string; obj: Record<string, unknown>; msg: string }> = [];
  debug(obj: Record<string, unknown>, msg: string) {
    this.push('debug', obj, msg);
  }
  info(obj: Record<string, unknown>, msg: string) {
    this.push('info', obj, msg);
  }
  warn(obj: Record<string, unknown>, msg: string) {
    this.push('warn', obj, msg);
  }
  error(obj: Record<string, unknown>, msg: string) {
    this.push('error', obj, msg);
  }
  private push(level: string, obj: Record<string, unknown>, msg: string) {
    this.records.push({ level, obj, msg });
  }
}

describe('logger', () => {
  it('logs worker start and close, retried and dead tasks, and recovered errors, with fields', async () => {
    const logger = new Recorder();
    const s = await redis.scheduler({ logger });
    await s.put('flaky', { maxAttempts: 2 });
    const worker = s.work(
      async () => {
        throw new Error('smtp down');
      },
      { backoff: () => 0, lease: 1000 },
    );
    await eventually(async () => (await s.stats()).dead === 1);
    await worker.close();
    const lines = logger.records.map((r) => `${r.level} ${r.msg}`);
    expect(lines).toEqual([
      'info docket: worker started',
      'info docket: task failed; it will be retried',
      'warn docket: task failed for the last time; it is dead',
      'info docket: worker closed',
    ]);
    const dead = logger.records[2].obj;
    expect(dead).toMatchObject({ queue: 'default', worker: worker.id, attempt: 2, outcome: 'dead', err: { name: 'Error', message: 'smtp down' } });
  });

  it('warns of a lost lease the worker found', async () => {
    const logger = new Recorder();
    const s = await redis.scheduler({ logger });
    await s.put('slow');
    let release!: () => void;
    const worker = s.work(() => new Promise<void>((r) => (release = r)), { lease: 1000 });
    await eventually(() => release !== undefined);
    // As if the worker had stalled past its lease: the lease lapses, and another claim takes it.
    const raw = await redis.raw();
    const { hash } = (await s.list('active')).tasks[0];
    await raw.zAdd(`${s.prefix}:{default}:active`, { score: 1, value: hash });
    expect((await s.claim())?.hash).toBe(hash);
    release();
    await eventually(() => logger.records.some((r) => r.level === 'warn'));
    await worker.close();
    expect(logger.records.find((r) => r.level === 'warn')).toMatchObject({ msg: 'docket: worker recovered from an error', obj: { err: { code: 'ERR_LEASE_LOST' } } });
  });

  it('writes nothing anywhere without a logger', async () => {
    const writes: string[] = [];
    const out = process.stdout.write.bind(process.stdout);
    const err = process.stderr.write.bind(process.stderr);
    process.stdout.write = ((chunk: string) => (writes.push(String(chunk)), true)) as never;
    process.stderr.write = ((chunk: string) => (writes.push(String(chunk)), true)) as never;
    try {
      const s = await redis.scheduler();
      await s.put('x', { maxAttempts: 1 });
      const worker = s.work(async () => {
        throw new Error('no');
      });
      await eventually(async () => (await s.stats()).dead === 1);
      await worker.close();
    } finally {
      process.stdout.write = out;
      process.stderr.write = err;
    }
    expect(writes).toEqual([]);
  });

  it('takes a logger with the two levels it calls, info and warn, and refuses one without them', async () => {
    const lines: string[] = [];
    const s = await redis.scheduler({ logger: { info: (_obj, msg) => lines.push(msg), warn: (_obj, msg) => lines.push(msg) } });
    await s.work(async () => {}).close();
    expect(lines).toEqual(['docket: worker started', 'docket: worker closed']);
    await expect(redis.scheduler({ logger: { info() {}, error() {} } as never })).rejects.toThrow('options.logger.warn: expected a function');
    await expect(redis.scheduler({ logger: { debug() {}, warn() {} } as never })).rejects.toThrow(ValidationError);
    await expect(redis.scheduler({ logger: 'console' as never })).rejects.toThrow('options.logger: expected a logger with info and warn methods (pino-shaped)');
  });
});
