/**
 * The events stream's replies, decoded in one place as the scripts' replies are by their codecs:
 * XREAD, XRANGE and XREVRANGE entries, and stream entry ids. docket reads them on RESP2 only
 * (connection.ts duplicates a RESP3 client onto RESP2), so an entry is `[id, [field, value, ...]]`.
 * A reply of another shape is a ReplyError naming the command.
 */
import { ReplyError } from '../../domain/errors';
import { array, text } from './codec';

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

/** An XREAD reply for one stream: null when the block timed out, else `[[key, entries]]`. */
export function readEntries(reply: unknown): StreamEntry[] {
  if (reply === null) return [];
  const [stream] = array('XREAD', reply, 1, 'the streams');
  const [, entries] = array('XREAD', stream, 2, 'a stream');
  return rangeEntries(entries, 'XREAD');
}

/** An `XREVRANGE key + - COUNT 1` reply: the stream's latest entry id, or null when it is empty. */
export function latestId(reply: unknown): string | null {
  const entries = rangeEntries(reply, 'XREVRANGE');
  if (entries.length > 1) throw new ReplyError('XREVRANGE', `the entries: expected at most 1, got ${entries.length}`);
  return entries[0]?.id ?? null;
}
