/**
 * `docket workers` (lib/surfaces/cli/workers.ts), run in-process through main() against the test
 * Redis: a work() worker with its heartbeat and the task it holds, a direct claim() holder, every
 * queue or one, and --json equal to what the dashboard's workers page reads (readWorkersPage).
 */
import { readWorkersPage } from '../lib/surfaces/live';
import { cli } from './support/cli';
import { eventually, useRedis } from './support/harness';

const redis = useRedis();

/** A table's data row whose first two cells are `queue` and `worker`, split into cells. */
function row(text: string, queue: string, worker: string): string[] {
  const line = text.split('\n').find((l) => l.startsWith(`${queue}  `) && l.split(/\s{2,}/)[1] === worker);
  if (!line) throw new Error(`no row ${queue} ${worker} in:\n${text}`);
  return line.split(/\s{2,}/);
}

describe('workers', () => {
  it('lists a work() worker with its heartbeat and task, then a direct claim() holder, and JSON as the dashboard reads it', async () => {
    const s = await redis.scheduler();
    const other = await redis.scheduler({ prefix: s.prefix });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const worked = (await s.put({ job: 'worked' }, { queue: 'busy' })).hash;
    const worker = other.work(() => gate, { queue: 'busy' });
    try {
      await eventually(async () => (await s.stats({ queue: 'busy' })).active === 1);
      const { hash: direct } = await s.put({ job: 'direct' }, { queue: 'busy' });
      await s.claim({ queue: 'busy', lease: 60_000 });
      await s.put('idle', { queue: 'quiet' });

      const text = await cli(s.prefix, ['workers']);
      expect(text).toMatchObject({ code: 0, stderr: '' });
      const page = await readWorkersPage(s, 'busy');
      if (!page.available) throw new Error('the workers of a createScheduler scheduler are readable');
      const [beating, claimer] = page.view.workers;
      expect(row(text.stdout, 'busy', beating.id)).toEqual(['busy', beating.id, expect.stringMatching(/^alive \(next deadline in \d+s\)$/), '1', worked]);
      expect(row(text.stdout, 'busy', claimer.id)).toEqual(['busy', claimer.id, 'none: claim() called directly', '1', direct]);
      expect(text.stdout).toContain("queue 'quiet': no worker is running, and no task is leased\n");

      const one = await cli(s.prefix, ['workers', '--queue', 'busy', '--json']);
      const doc = JSON.parse(one.stdout) as { queues: Array<typeof page> };
      expect(doc.queues).toHaveLength(1);
      // The same read as the dashboard's; only the times move on between the two (a heartbeat may beat).
      const held = (p: typeof page) => (p.available ? { ...p.view, now: 0, workers: p.view.workers.map((w) => ({ ...w, beatUntil: w.beatUntil === null ? null : 0 })) } : null);
      expect(doc.queues[0]).toMatchObject({ queue: 'busy', available: true, now: expect.any(Number) });
      expect(held(doc.queues[0])).toEqual(held(page));
      expect((await cli(s.prefix, ['workers', 'busy'])).stdout).not.toContain('quiet');
    } finally {
      release();
      await worker.close();
    }
  });

  it('says when no queue is registered under the prefix, and refuses a queue given twice before connecting', async () => {
    const s = await redis.scheduler();
    expect(await cli(s.prefix, ['workers'])).toEqual({ code: 0, stdout: expect.stringContaining(`no queues under prefix '${s.prefix}'`), stderr: '' });
    expect(await cli(s.prefix, ['workers', 'a', '--queue', 'b'])).toMatchObject({ code: 2, stderr: expect.stringContaining('give the queue once') });
    expect(await cli(s.prefix, ['workers', '--queue', 'a b'])).toMatchObject({ code: 2, stderr: expect.stringContaining("invalid queue name 'a b'") });
  });
});
