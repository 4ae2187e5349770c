/**
 * The scripts that delete in bulk: clean (one batch of a queue's ready, delayed or dead tasks, from
 * one source) and obliterate (every key of a queue). Headers in lua/clean.lua, lua/obliterate.lua.
 */
import type { READY_LEVELS } from '../../domain/keys';
import { array, flag, num, oneOf, text, type Codec } from './codec';

/** Where clean reads a batch from: the dead set, the delayed set, or one of the ready structures. */
export type CleanSource = 'dead' | 'delayed' | 'ready' | (typeof READY_LEVELS)[number] | 'grouped' | 'parked';

export interface CleanInput {
  source: CleanSource;
  /** Only tasks put (dead ones: died) at or before this time (epoch ms); null for all. */
  before: number | null;
  /** Most tasks to delete in this call. */
  most: number;
  /** Most entries to examine in this call. */
  scan: number;
  /** Where the previous call in this source stopped; '' to start. */
  cursor: string;
  events: number;
}

export interface CleanReply {
  deleted: number;
  /** The source is done: no call from `cursor` would find more. */
  done: boolean;
  cursor: string;
  /** Steps for other queues were made (tasks there waited on deleted ones): carry them. */
  outboxed: boolean;
}

export const clean: Codec<CleanInput, CleanReply> = {
  encode: (i) => [i.source, i.before ?? -1, i.most, i.scan, i.cursor, i.events],
  decode(reply) {
    const r = array('clean', reply, 4);
    return { deleted: num('clean', r[0], 'deleted'), done: flag('clean', r[1], 'done'), cursor: text('clean', r[2], 'the cursor'), outboxed: flag('clean', r[3], 'outboxed') };
  },
};

/**
 * `ok`: every key deleted; `carry`: every key but the outbox, whose steps for other queues the
 * caller carries before it calls again; `active`: refused, `leased` tasks are held (nothing deleted).
 */
export type Obliterated = { status: 'ok' | 'carry'; deleted: number } | { status: 'active'; leased: number };

export const obliterate: Codec<{ force: boolean }, Obliterated> = {
  encode: (i) => [i.force ? 1 : 0],
  decode(reply) {
    const r = array('obliterate', reply, 2);
    const status = oneOf('obliterate', r[0], ['ok', 'carry', 'active'] as const, 'the status');
    const n = num('obliterate', r[1], 'the count');
    return status === 'active' ? { status, leased: n } : { status, deleted: n };
  },
};
