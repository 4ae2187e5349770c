/**
 * `docket watch`: the stats table redrawn every `--interval` seconds, with completions and
 * failures per second since the previous frame, until Ctrl-C (or io.signal) stops it. Under
 * --json each frame is one line of JSON, so the output can be piped into a line reader.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { isoTime, printable, printableJson } from '../printable';
import type { Scheduler } from '../../types/scheduler';
import { intervalArg, queueArg } from './args';
import { positionals, type Command, type RunContext } from './command';
import { NONE, table } from './format';
import { noQueues, readStats, STATS_COLUMNS, statsCells, statsJson, type QueueRow } from './queues';

/** One reading: when it was taken (this machine's clock: only differences between frames matter). */
interface Frame {
  at: number;
  rows: QueueRow[];
  /** Why this reading failed; the loop keeps trying, as Redis may come back. */
  error?: string;
}

/** Moves the cursor home and clears the screen, so each frame replaces the last. */
const CLEAR = '\u001b[H\u001b[2J';

export const watch: Command = {
  name: 'watch',
  usage: '[queue]',
  summary: 'live counts and rates, redrawn until Ctrl-C',
  flags: ['interval'],
  prepare(input) {
    const [name] = positionals('watch', input, ['queue'], 1);
    const queue = name === undefined ? undefined : queueArg(name);
    const interval = intervalArg(input.flags.interval);
    return (ctx) => loop(ctx, queue, interval);
  },
};

async function loop(ctx: RunContext, queue: string | undefined, interval: number): Promise<number> {
  const s = await ctx.connect();
  const signal = ctx.interrupted();
  // The first reading may fail outright (exit 1); after that a failure is shown and retried.
  let last: Frame = { at: Date.now(), rows: await readStats(s, queue) };
  draw(ctx, last, undefined, interval);
  while (!signal.aborted) {
    await sleep(interval, undefined, { signal }).catch((err: unknown) => {
      if (!signal.aborted) throw err;
    });
    if (signal.aborted) break;
    const frame = await read(s, queue);
    draw(ctx, frame, last, interval);
    if (!frame.error) last = frame;
  }
  return 0;
}

async function read(s: Scheduler, queue: string | undefined): Promise<Frame> {
  const at = Date.now();
  try {
    return { at, rows: await readStats(s, queue) };
  } catch (err) {
    return { at, rows: [], error: err instanceof Error ? err.message : String(err) };
  }
}

function draw({ out, prefix }: RunContext, frame: Frame, previous: Frame | undefined, interval: number): void {
  if (out.json) {
    const doc = frame.error ? { at: frame.at, error: frame.error } : { at: frame.at, queues: frame.rows.map(statsJson) };
    out.write(`${printableJson(doc)}\n`);
    return;
  }
  const head = `docket watch  prefix '${printable(prefix)}'  ${isoTime(frame.at)}  every ${interval / 1000}s, Ctrl-C to stop\n\n`;
  // A terminal gets each frame in place; a pipe or file gets them one after another. Frames are
  // written raw (the clear-screen sequence is ours): what comes from Redis is made printable here.
  out.write(`${out.tty ? CLEAR : previous ? '\n' : ''}${head}${body(frame, previous, prefix)}`);
}

function body(frame: Frame, previous: Frame | undefined, prefix: string): string {
  if (frame.error) return `cannot read stats: ${printable(frame.error)} (retrying)\n`;
  if (frame.rows.length === 0) return noQueues(prefix);
  const columns = [...STATS_COLUMNS, { title: 'DONE/S', right: true }, { title: 'FAILED/S', right: true }];
  const before = new Map(previous?.rows.map((row) => [row.queue, row.stats.totals]));
  const seconds = previous ? (frame.at - previous.at) / 1000 : 0;
  const rate = (now: number, then: number | undefined) => (then === undefined || seconds <= 0 ? NONE : ((now - then) / seconds).toFixed(1));
  const rows = frame.rows.map((row) => {
    const was = before.get(row.queue);
    return [...statsCells(row), rate(row.stats.totals.completed, was?.completed), rate(row.stats.totals.failed, was?.failed)];
  });
  return table(columns, rows);
}
