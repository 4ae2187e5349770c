/**
 * A task's stored metadata: the JSON record kept per task in the queue's `tasks` hash, before its
 * payload (docs/design.md, lua/include/record.lua), written by the Lua scripts and read by task.ts
 * (get) and outcome.ts (result). Its own module so that both can read it without importing each other.
 */
import { DEFAULT_MAX_ATTEMPTS } from './domain';
import { UnreadableRecordError } from '../types/errors';
import { parseRecord } from './payload';

/** The stored metadata; single letters keep each of a million records small. */
export interface Meta {
  r: number; // run-at
  m: number; // max attempts
  n: number; // deliveries so far
  c: number; // created at
  p?: number; // priority level 1-9 (absent: 0, normal)
  g?: string; // fair-scheduling group
  q?: string; // its place in its group's order, once parked by the group's limit (cleared when leased)
  k?: string; // de-dup key
  x?: number; // expire window (ms after run-at)
  e?: number; // expire-at
  t?: string | false; // lease token; false once cancelled while it ran (cx)
  l?: number; // lease deadline
  w?: string; // worker holding the lease
  cx?: number; // cancelled while it ran, at (its holder's beat, or its lapse, ends it: lua/include/cancels.lua)
  tp?: string; // the producer's trace context, encoded (tracing.ts)
  err?: string; // last error
  en?: 'unrecoverable' | 'retry-later' | 'snoozed'; // how the latest attempt ended, when not the usual 'failed'
  kr?: number; // keep the outcome this long once finished (ms)
  to?: number; // run timeout of one attempt (ms)
  nm?: string; // name
  pg?: 1; // has reported progress (in the queue's `progress` hash)
  lg?: 1; // has log lines (in the queue's `logs` hash)
  s?: number; // first started at (its first lease)
  f?: number; // finished at (a done task, in the queue's history)
  rs?: string; // the result as acked, JSON or sealed (a done task, in the queue's history)
  kp?: { dc?: number; da?: number; xc?: number; xa?: number }; // put's `keep`: done and dead count and age (lib/life/put.ts, keepCaps)
  sc?: string; // the schedule that put it (an occurrence: lua/include/occurrences.lua)
}

/**
 * A record as the scripts answer it (an object, or a creation time alone), with what they leave out
 * put back: n 0, r = c, and m the fixed DEFAULT_MAX_ATTEMPTS of lua/include/record.lua (not a
 * scheduler's own default, which may differ per process).
 */
export function parseMeta(text: string, what: string): Meta {
  const stored = parseRecord<Partial<Meta> | number | null>(text, what);
  // A record left with its creation time alone is stored as that number (lua/include/record.lua).
  const meta = typeof stored === 'number' ? { c: stored } : stored;
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta)) throw new UnreadableRecordError(what, new TypeError('not a JSON object'));
  return { ...meta, n: meta.n ?? 0, r: meta.r ?? (meta.c as number), m: meta.m ?? DEFAULT_MAX_ATTEMPTS } as Meta;
}
