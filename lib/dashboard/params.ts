/**
 * The query parameters of the dashboard's list pages (`/tasks`, `/api/tasks`): which state, which
 * page of it (`offset`, `limit`), and what to search for (`q`). Each is checked before anything is
 * read, and a bad one is a ValidationError naming it (the handler answers 400 with its field).
 */
import { ValidationError } from '../errors';
import type { TaskState } from '../task';
import { STATES } from '../admin';
import { parseQueueParam } from './options';

/** Most tasks one page lists. */
export const MAX_PAGE = 100;
/** Furthest a page may start: past a billion tasks nobody pages by hand. */
export const MAX_OFFSET = 1_000_000_000;
/** Longest search text: a hash (up to 1,024 characters) or a piece of a payload. */
export const MAX_QUERY_CHARS = 1024;

/** What a list page asks for. */
export interface ListQuery {
  queue: string | undefined;
  state: TaskState;
  offset: number;
  limit: number;
  /** The search text, trimmed; undefined for none. */
  q: string | undefined;
}

/** A whole number from `min` to `max` given as decimal digits, else `fallback` when absent or empty. */
function wholeParam(query: URLSearchParams, field: string, min: number, max: number, fallback: number): number {
  const raw = query.get(field);
  if (raw === null || raw.trim() === '') return fallback;
  const text = raw.trim();
  const n = /^\d{1,10}$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new ValidationError(field, `expected a whole number from ${min} to ${max}`);
  return n;
}

/** The state a list page shows: one of list()'s states. */
export function parseStateParam(value: string | null): TaskState {
  if (value === null || value === '') throw new ValidationError('state', `required: one of ${STATES.join(', ')}`);
  if (!(STATES as readonly string[]).includes(value)) throw new ValidationError('state', `expected one of ${STATES.join(', ')}`);
  return value as TaskState;
}

/** `?queue=&state=&offset=&limit=&q=` of a list page; `pageSize` is the dashboard's `limit` option. */
export function parseListQuery(query: URLSearchParams, pageSize: number): ListQuery {
  const queue = parseQueueParam(query.get('queue'));
  const state = parseStateParam(query.get('state'));
  const offset = wholeParam(query, 'offset', 0, MAX_OFFSET, 0);
  const limit = wholeParam(query, 'limit', 1, MAX_PAGE, pageSize);
  const text = query.get('q')?.trim() ?? '';
  if (text.length > MAX_QUERY_CHARS) throw new ValidationError('q', `must be at most ${MAX_QUERY_CHARS} characters`);
  return { queue, state, offset, limit, q: text === '' ? undefined : text };
}
