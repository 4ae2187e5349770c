/**
 * The stream commands: XREAD, XRANGE, XREVRANGE and XINFO STREAM on the queues' events streams,
 * and stream entry ids. docket reads them on RESP2 only (connection.ts duplicates a RESP3 client
 * onto RESP2), so an entry is `[id, [field, value, ...]]`. A reply of another shape is a
 * ReplyError naming the command.
 */
import { ReplyError } from '../../types/errors';
import { array, text, count } from '../../redis/reply';
import { command } from './via';

/** One entry of a stream: its id, the time in it, and its fields. */
export interface StreamEntry {
  /** 'ms-seq', as Redis gave it. */
  id: string;
  /** The ms part of the id: when the entry was added, on the Redis clock. */
  at: number;
  fields: Map<string, string>;
}

/** A stream entry id, 'ms-seq', as its two numbers. */
function parts(command: string, id: string): [ms: number, seq: number] {
  const m = /^(\d+)-(\d+)$/.exec(id);
  if (!m) throw new ReplyError(command, `a stream entry id: expected 'ms-seq', got ${JSON.stringify(id)}`);
  return [Number(m[1]), Number(m[2])];
}

/** When a stream entry was added (epoch ms, Redis clock): the ms part of its id. */
export function entryTime(id: string, command = 'XREAD'): number {
  return parts(command, id)[0];
}

/** Whether stream id `a` comes after `b` ('' comes before every id). */
export function after(a: string, b: string): boolean {
  if (b === '') return true;
  const [am, as] = parts('XREAD', a);
  const [bm, bs] = parts('XREAD', b);
  return am > bm || (am === bm && as > bs);
}

/** An XRANGE reply (and each stream's part of an XREAD one): `[[id, [field, value, ...]], ...]`. */
export function rangeEntries(reply: unknown, command = 'XRANGE'): StreamEntry[] {
  return array(command, reply, undefined, 'the entries').map((raw) => {
    const [rawId, rawFields] = array(command, raw, 2, 'an entry');
    const id = text(command, rawId, 'an entry id');
    // A deleted entry may come back with no fields (nil): it says nothing.
    const flat = rawFields === null ? [] : array(command, rawFields, (n) => n % 2 === 0, 'the fields of an entry');
    const fields = new Map<string, string>();
    for (let i = 0; i < flat.length; i += 2) fields.set(text(command, flat[i], 'a field name'), text(command, flat[i + 1], 'a field value'));
    return { id, at: entryTime(id, command), fields };
  });
}

/** An XREAD reply: each stream's new entries, by key; null (the block timed out) reads as none. */
export function readStreams(reply: unknown): Map<string, StreamEntry[]> {
  const read = new Map<string, StreamEntry[]>();
  if (reply === null) return read;
  for (const stream of array('XREAD', reply, undefined, 'the streams')) {
    const [key, entries] = array('XREAD', stream, 2, 'a stream');
    read.set(text('XREAD', key, 'a stream key'), rangeEntries(entries, 'XREAD'));
  }
  return read;
}

/** An `XREVRANGE key + - COUNT 1` reply: the stream's latest entry id, or null when it is empty. */
export function latestId(reply: unknown): string | null {
  const entries = rangeEntries(reply, 'XREVRANGE');
  if (entries.length > 1) throw new ReplyError('XREVRANGE', `the entries: expected at most 1, got ${entries.length}`);
  return entries[0]?.id ?? null;
}

/** How an XREAD reads: at most `count` entries per stream, blocking up to `block` ms when given. */
export interface ReadOptions {
  count: number;
  block?: number;
}

/** XREAD of each `[key, id]` stream after its id: the new entries by key (none for a stream with none). */
export const xread = command(
  (streams: ReadonlyArray<readonly [key: string, after: string]>, options: ReadOptions) => [
    'XREAD',
    'COUNT',
    String(options.count),
    ...(options.block === undefined ? [] : ['BLOCK', String(options.block)]),
    'STREAMS',
    ...streams.map(([key]) => key),
    ...streams.map(([, id]) => id),
  ],
  readStreams,
);

/** XRANGE from `start` (an id, or a time in ms) to the end, oldest first. */
export const xrange = command(
  (key: string, start: string) => ['XRANGE', key, start, '+'],
  (reply) => rangeEntries(reply, 'XRANGE'),
);

/** XREVRANGE of the newest `count` entries, newest first. */
export const xrevrange = command(
  (key: string, count: number) => ['XREVRANGE', key, '+', '-', 'COUNT', String(count)],
  (reply) => rangeEntries(reply, 'XREVRANGE'),
);

/** The stream's latest entry id (XREVRANGE COUNT 1), or null when it is empty. */
export const latest = command((key: string) => ['XREVRANGE', key, '+', '-', 'COUNT', '1'], latestId);

/** What XINFO STREAM tells of a stream that docket reads. */
export interface StreamInfo {
  /** Entries it holds now. */
  length: number;
  /** Entries ever added, trimmed ones included; null before Redis 7.0, which does not count them. */
  entriesAdded: number | null;
  /** The id of its oldest entry not trimmed or deleted; null before Redis 7.0. */
  recordedFirstEntryId: string | null;
}

/** XINFO STREAM (the stream must exist): its length and, from Redis 7.0, how much trimming dropped. */
export const xinfoStream = command(
  (key: string) => ['XINFO', 'STREAM', key],
  (reply): StreamInfo => {
    const name = 'XINFO STREAM';
    // Field, value, ...: values are integers, ids and entries, so not every one is a string.
    const flat = array(name, reply, (n) => n % 2 === 0, 'the fields and values');
    const info = new Map<string, unknown>();
    for (let i = 0; i < flat.length; i += 2) info.set(text(name, flat[i], 'a field'), flat[i + 1]);
    const added = info.get('entries-added');
    const first = info.get('recorded-first-entry-id');
    const firstId = first === undefined ? null : text(name, first, 'recorded-first-entry-id');
    if (firstId !== null) parts(name, firstId);
    return { length: count(name, info.get('length'), 'length'), entriesAdded: added === undefined ? null : count(name, added, 'entries-added'), recordedFirstEntryId: firstId };
  },
);
