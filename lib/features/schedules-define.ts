/**
 * A schedule's definition written again, and what becomes of the occurrences the old one put: one
 * declared anew with another time, data or task template (every() or schedule() called again)
 * has its pending occurrences cancelled and its record of occurrences put reset, so the new
 * declaration puts its own next occurrence; none of the old runs at the old time or with the old
 * data. Declared the same way (every replica of a service declaring it at start), nothing changes.
 */
import { hdel, hget, hset } from '../ops/commands/hashes';
import { routed } from '../ops/commands/via';
import type { Context } from '../redis/context';
import { unseal } from '../domain/crypto';
import { canonicalJson } from '../domain/payload';
import { cancel } from '../ops/cancel';
import { AHEAD_MS, occurrenceHash, occurrencesOf, parseDefinition, type Definition } from './schedules-record';

/** The occurrences of a schedule that may be pending: those up to AHEAD_MS (and a look) before the latest put, which is all a look puts ahead. */
export function mayBePending(d: Definition, latest: number): number[] {
  return [...new Set([...occurrencesOf(d).between(latest - 2 * AHEAD_MS, latest, 1000), latest])];
}

/**
 * Cancels the occurrences of schedule `name` that may be pending (mayBePending); cancel leaves an
 * active or finished one alone. With no definition, or one that cannot be read, only the latest.
 */
export async function cancelPending(ctx: Context, queue: string, name: string, json: string | null, latest: number | null): Promise<void> {
  if (latest === null) return;
  let d: Definition | null = null;
  try {
    d = json === null ? null : parseDefinition(name, json);
  } catch {
    // Unreadable: removing it must still work (unschedule is how a bad record goes).
  }
  const keys = ctx.keys(queue);
  const ats = d === null ? [latest] : mayBePending(d, latest);
  await Promise.all(ats.map((at) => ctx.scripts.run(cancel, keys, { id: occurrenceHash(ctx, queue, name, at, d?.template?.taskName), events: ctx.options.eventsMaxLength })));
}

/** Writes schedule `name`'s definition; a pending occurrence of another time or template than the new one's is cancelled (see above). */
export async function define(ctx: Context, queue: string, name: string, definition: Definition, canonical: string, what: string): Promise<void> {
  const keys = ctx.keys(queue);
  const deadline = { ms: ctx.options.commandTimeout, what };
  const [old, latest] = await Promise.all([hget(routed(ctx.conn, keys.schedules, deadline), keys.schedules, name), hget(routed(ctx.conn, keys.occurred, deadline), keys.occurred, name)]);
  await hset(routed(ctx.conn, keys.schedules, deadline), keys.schedules, name, JSON.stringify(definition));
  if (old === null || latest === null || sameRuns(ctx, name, old, definition, canonical)) return;
  // A latest that is no time cancels nothing: the reset below is all it needs.
  const at = Number(latest);
  if (Number.isSafeInteger(at)) await cancelPending(ctx, queue, name, old, at);
  // The old record would make put.lua skip the new declaration's occurrences at or before it.
  await hdel(routed(ctx.conn, keys.occurred, deadline), keys.occurred, name);
}

/** Whether the definition stored as `json` puts the same tasks at the same times as `d` (whose data is `canonical`). */
function sameRuns(ctx: Context, name: string, json: string, d: Definition, canonical: string): boolean {
  try {
    const old = parseDefinition(name, json);
    const same = old.cron === d.cron && old.tz === d.tz && old.every === d.every;
    return same && templateText(old) === templateText(d) && unseal(ctx.keyring, old.data, name, true) === canonical;
  } catch {
    return false; // unreadable: nothing of it is worth keeping
  }
}

/** A definition's template as canonical JSON: its fields in one order, those left out absent. */
function templateText(d: Definition): string {
  return canonicalJson(JSON.parse(JSON.stringify(d.template ?? {})));
}
