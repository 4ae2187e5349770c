/**
 * The `<when>` of `docket reschedule`: `now`, `+30s`/`+5m`/`+2h`/`+1d` from now, epoch
 * milliseconds, or an ISO 8601 date-time with its offset. Anything else is refused rather than
 * guessed at: a task moved to the wrong time runs at the wrong time.
 */
import { UsageError } from './command';

/** A parsed `<when>`: an absolute instant, or an offset from the Redis server's clock. */
export type When = { at: number } | { fromNow: number };

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Epoch milliseconds before 2000 are refused: `30` or a 10-digit epoch in seconds is far more
 * likely a slip than a wish to run the task in 1970.
 */
const EARLIEST_EPOCH_MS = Date.UTC(2000, 0, 1);

/** `YYYY-MM-DDTHH:MM[:SS[.fff]]` then `Z` or `±HH:MM`. */
const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2})$/;

const HINT = 'expected now, +30s, +5m, +2h, +1d, epoch milliseconds, or an ISO 8601 date-time such as 2030-01-31T09:00:00Z';

/** Parses a `<when>` argument, or throws a UsageError that says what is accepted. */
export function parseWhen(text: string): When {
  if (text === 'now') return { fromNow: 0 };
  const rel = /^\+(\d{1,9})([smhd])$/.exec(text);
  if (rel) return { fromNow: Number(rel[1]) * UNIT_MS[rel[2]] };
  if (/^\d+$/.test(text)) return { at: epoch(text) };
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) return { at: isoDate(text) };
  throw new UsageError(`bad <when> '${text}': ${HINT}`);
}

/** The instant a When names, given the server's clock now. */
export function resolveWhen(when: When, now: number): number {
  return 'at' in when ? when.at : now + when.fromNow;
}

function epoch(text: string): number {
  const ms = Number(text);
  if (!Number.isSafeInteger(ms) || ms < EARLIEST_EPOCH_MS) {
    throw new UsageError(`bad <when> '${text}': epoch milliseconds before the year 2000 are refused (a delay is written +30s; epoch seconds need three more digits)`);
  }
  return ms;
}

function isoDate(text: string): number {
  const m = ISO.exec(text);
  if (!m) {
    const noZone = ISO.test(`${text}Z`);
    throw new UsageError(`bad <when> '${text}': ${noZone ? 'give the time zone (Z or an offset such as +02:00)' : HINT}`);
  }
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map((v) => Number(v ?? 0));
  // Date.parse rolls 2030-02-30 over into March; a calendar check refuses it instead.
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  if (month < 1 || month > 12 || day < 1 || day > days || hour > 23 || minute > 59 || second > 59) {
    throw new UsageError(`bad <when> '${text}': not a real date or time`);
  }
  return Date.parse(text.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
}
