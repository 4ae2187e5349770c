/**
 * The dashboard's options, checked and defaulted by zod here and nowhere else (strict, so a
 * misspelled option is reported), and the checks on what a request carries: an action's body, a
 * page's query (the queue, the task, and a list page's state, page and search text).
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { ValidationError } from '../../types/errors';
import { STATES } from '../../features/admin';
import { CLEAN_STATES, count, groupPauseOptions, MAX_DEDUP_WINDOW_MS, MAX_GROUP_LIMIT, parse, queueName, taskHash } from '../../domain/options';
import type { TaskState } from '../../types/task';

/** A token short enough to guess makes the constant-time comparison pointless. */
const token = z
  .string({ error: 'expected a string' })
  .min(16, { error: 'must be 16 to 512 characters' })
  .max(512, { error: 'must be 16 to 512 characters' })
  .regex(/^[\x21-\x7e]+$/, { error: 'must be visible ASCII characters (no spaces)' });

/** URL path segments of unreserved characters only: the path goes into links and a cookie's Path. */
const basePath = z
  .string({ error: 'expected a string' })
  .max(256, { error: 'must be at most 256 characters' })
  .regex(/^(\/[A-Za-z0-9._~-]+)*\/?$/, { error: "expected '' or a path such as '/docket' (letters, digits, . _ ~ -)" })
  .transform((p) => p.replace(/\/$/, ''));

/** A DNS name: dot-separated labels of letters, digits and inner hyphens. */
const DNS_NAME = /^(?=.{1,253}\.?$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/;

/**
 * The address to bind: an IP address or a host name, checked here so that a typo ('a b', '-h')
 * is a ValidationError naming the option, not a DNS failure at listen time.
 */
export const hostName = z.string({ error: 'expected a string' }).refine((h) => isIP(h) !== 0 || DNS_NAME.test(h), { error: 'expected a host name or an IP address' });

const dashboardShape = {
  token: token.optional(),
  basePath: basePath.default(''),
  limit: count(100).default(20),
};

export const dashboardOptions = z.strictObject(dashboardShape);

export const serveOptions = z
  .strictObject({
    ...dashboardShape,
    port: z
      .number({ error: 'expected a number' })
      .int({ error: 'expected a whole number' })
      .min(0, { error: 'must be from 0 to 65535' })
      .max(65535, { error: 'must be from 0 to 65535' })
      .default(0),
    host: hostName.default('127.0.0.1'),
    // A boolean, not anything truthy: 'false' or 1 from a config file must not switch the token off.
    insecureNoToken: z.boolean({ error: 'expected true or false' }).default(false),
    onWarning: z.custom<(message: string) => void>((v) => typeof v === 'function', { error: 'expected a function' }).optional(),
  })
  .refine((o) => !(o.insecureNoToken && o.token !== undefined), { error: 'give token or insecureNoToken, not both', path: ['insecureNoToken'] });

export type ParsedDashboardOptions = z.output<typeof dashboardOptions>;
export type ParsedServeOptions = z.output<typeof serveOptions>;

/**
 * A task's hash as put() returned it: the scheduler's rule (taskHash), and visible ASCII only. The
 * hash reaches the page through a form or a pasted link, so a space or control character inside
 * it is a copying slip, refused here as no hash rather than looked up and not found.
 */
const hash = taskHash.regex(/^[\x21-\x7e]*$/, { error: 'expected the hash string that put() returned' });

/** Latest reschedule the page offers: a year ahead. */
const MAX_DELAY_MS = 365 * 86_400_000;

/** Form fields arrive as strings, JSON bodies as numbers: a string of digits counts as a number. */
const digits = (v: unknown) => (typeof v === 'string' && /^\d+$/.test(v.trim()) ? Number(v) : v);

const DELAY_HINT = `expected whole milliseconds from 0 to ${MAX_DELAY_MS}`;
const delay = z.preprocess(digits, z.number({ error: DELAY_HINT }).int({ error: DELAY_HINT }).min(0, { error: DELAY_HINT }).max(MAX_DELAY_MS, { error: DELAY_HINT }));

const AT_HINT = "expected epoch ms or an ISO-8601 time with its zone ('2030-01-01T12:00:00Z')";
/** An instant: epoch ms, or an ISO-8601 date-time with its zone; a zoneless time would be ambiguous. */
const instant = z.preprocess(
  (v) => (typeof v === 'string' && /^\d{4}-\d\d-\d\dT[\d:.]+(Z|[+-]\d\d:?\d\d)$/i.test(v.trim()) ? Date.parse(v) : digits(v)),
  z.number({ error: AT_HINT }).int({ error: AT_HINT }).min(0, { error: AT_HINT }),
);

const queueBody = z.strictObject({ queue: queueName, csrf: z.string().optional() }, { error: 'expected an object of fields' });
const taskBody = queueBody.extend({ hash });
const rescheduleBody = taskBody
  .extend({
    at: instant.optional(),
    delay: delay.optional(),
  })
  .refine((b) => (b.at === undefined) !== (b.delay === undefined), { error: 'give either at or delay', path: ['at'] });

/**
 * A limit from the limits form: a whole number from 1 to `max`, or `off` (a form) or null (JSON)
 * to remove it. The bounds are the scheduler's (lib/domain/options/scheduler.ts).
 */
function limitValue(max: number) {
  const hint = `expected a whole number from 1 to ${max}, or off`;
  const n = z.number({ error: hint }).int({ error: hint }).min(1, { error: hint }).max(max, { error: hint });
  return z.preprocess((v) => (v === 'off' ? null : digits(v)), n.nullable());
}

const PER_HINT = `expected whole milliseconds from 1 to ${MAX_DEDUP_WINDOW_MS} (30 days)`;
const per = z.preprocess(digits, z.number({ error: PER_HINT }).int({ error: PER_HINT }).min(1, { error: PER_HINT }).max(MAX_DEDUP_WINDOW_MS, { error: PER_HINT }));

const concurrencyBody = queueBody.extend({ limit: limitValue(MAX_GROUP_LIMIT) });
/** `max` and `per` set a rate limit; `max` off (or null) with no `per` removes it. */
const rateBody = queueBody
  .extend({ max: limitValue(1_000_000), per: per.optional() })
  .refine((b) => (b.max === null) === (b.per === undefined), { error: 'give per (ms) with max, and none when max is off', path: ['per'] });

/** A clean: a state and, from the form's choice, an age in ms (absent or '' for any age). */
const AGE_HINT = 'expected whole milliseconds from 0 up';
const cleanBody = queueBody.extend({
  state: z.enum(CLEAN_STATES, { error: `expected one of ${CLEAN_STATES.join(', ')}` }),
  olderThan: z.preprocess((v) => (v === '' ? undefined : digits(v)), z.number({ error: AGE_HINT }).int({ error: AGE_HINT }).min(0, { error: AGE_HINT }).optional()),
});

export type QueueBody = z.output<typeof queueBody>;
export type TaskBody = z.output<typeof taskBody>;
export type RescheduleBody = z.output<typeof rescheduleBody>;

/**
 * Parses an action's body, or throws a ValidationError naming the bad field as the request
 * named it (`hash`, `at`), so a caller can point at the input.
 */
function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  if (issue.code === 'unrecognized_keys') throw new ValidationError(issue.keys[0], 'is not a known field');
  throw new ValidationError(issue.path.map(String).join('.') || 'body', issue.message);
}

export function parseQueueBody(body: unknown): QueueBody {
  return parseBody(queueBody, body);
}

/** cancel: a task, and `running` ('1', as the active task's form posts it) to cancel it while it runs. */
export function parseCancelBody(body: unknown): TaskBody & { running?: '1' | true } {
  return parseBody(taskBody.extend({ running: z.union([z.literal('1'), z.literal(true)], { error: "expected '1' or true" }).optional() }), body);
}

/** pause and resume: a queue, and a group when only that group is meant (the Groups tab). */
export function parsePauseBody(body: unknown): QueueBody & { group?: string } {
  return parseBody(queueBody.extend({ group: groupPauseOptions.shape.group.optional() }), body);
}

export function parseTaskBody(body: unknown): TaskBody {
  return parseBody(taskBody, body);
}

export function parseRescheduleBody(body: unknown): RescheduleBody {
  return parseBody(rescheduleBody, body);
}

export function parseConcurrencyBody(body: unknown): z.output<typeof concurrencyBody> {
  return parseBody(concurrencyBody, body);
}

export function parseCleanBody(body: unknown): z.output<typeof cleanBody> {
  return parseBody(cleanBody, body);
}

export function parseRateBody(body: unknown): z.output<typeof rateBody> {
  return parseBody(rateBody, body);
}

/** The `?queue=` of the page and the overview API, when given. */
export function parseQueueParam(value: string | null): string | undefined {
  return value === null || value === '' ? undefined : parse(queueName, value, 'queue');
}

/**
 * The `?hash=` of a lookup, when given: trimmed, since a hash pasted into the page's form often
 * brings a space or a line break along; a ValidationError naming `hash` when it is no hash.
 */
export function parseHashParam(value: string | null): string | undefined {
  const text = value?.trim() ?? '';
  return text === '' ? undefined : parse(hash, text, 'hash');
}

/** The chart's `?span=`: `10m` (the default) or `24h`. */
export function parseSpanParam(value: string | null): '10m' | '24h' {
  if (value === null || value === '' || value === '10m' || value === '24h') return value === '24h' ? '24h' : '10m';
  throw new ValidationError('span', "expected '10m' or '24h'");
}

/** The `?queue=&hash=` of `GET /api/task`: both required. */
export function parseTaskQuery(query: URLSearchParams): { queue: string; hash: string } {
  const queue = parseQueueParam(query.get('queue'));
  if (queue === undefined) throw new ValidationError('queue', 'required: the queue the task was put on');
  const found = parseHashParam(query.get('hash'));
  if (found === undefined) throw new ValidationError('hash', 'required: the hash put() returned');
  return { queue, hash: found };
}

/** Most tasks one page of a list lists. */
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

/** A query parameter left out or left empty (an empty form field) is not given. */
const given = (v: unknown) => (typeof v === 'string' && v.trim() === '' ? undefined : v);

/** A whole number from `min` to `max`, as decimal digits. */
const wholeParam = (min: number, max: number) => {
  const error = `expected a whole number from ${min} to ${max}`;
  return z.preprocess(
    given,
    z
      .string()
      .trim()
      .regex(/^\d{1,10}$/, { error })
      .transform(Number)
      .pipe(z.number().min(min, { error }).max(max, { error }))
      .optional(),
  );
};

const listQuery = z.object({
  state: z.preprocess(given, z.enum(STATES, { error: (issue) => (issue.input === undefined ? `required: one of ${STATES.join(', ')}` : `expected one of ${STATES.join(', ')}`) })),
  offset: wholeParam(0, MAX_OFFSET),
  limit: wholeParam(1, MAX_PAGE),
  q: z.preprocess(
    given,
    z
      .string()
      .trim()
      .max(MAX_QUERY_CHARS, { error: `must be at most ${MAX_QUERY_CHARS} characters` })
      .optional(),
  ),
});

/** `?queue=&state=&offset=&limit=&q=` of a list page; `pageSize` is the dashboard's `limit` option. */
export function parseListQuery(query: URLSearchParams, pageSize: number): ListQuery {
  const queue = parseQueueParam(query.get('queue'));
  const field = (name: string) => query.get(name) ?? undefined;
  const { state, offset, limit, q } = parseBody(listQuery, { state: field('state'), offset: field('offset'), limit: field('limit'), q: field('q') });
  return { queue, state, offset: offset ?? 0, limit: limit ?? pageSize, q };
}
