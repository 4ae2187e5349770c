/**
 * The scripts that only read: get, result, stats, list and access (headers in lua/get.lua,
 * result.lua, stats.lua, list.lua, access.lua). Records come back as stored (meta and progress
 * JSON): their callers parse them.
 */
import { TASK_STATES, type TaskState } from '../../domain/domain';
import { ReplyError } from '../../domain/errors';
import { array, flag, maybeNum, maybeText, num, oneOf, text, textOrNull, type Codec } from './codec';

/** A task's stored record and the state it is in, as get and list read it. */
export interface TaskRecord {
  /** Canonical JSON payload; null when the record has none (damaged). */
  payload: string | null;
  /** JSON task metadata (lib/domain/task.ts, Meta). */
  meta: string;
  state: TaskState;
  /** JSON progress, or null when none was reported. */
  progress: string | null;
}

/** The task's record, or null for an unknown task. */
export const get: Codec<{ id: string }, TaskRecord | null> = {
  encode: (i) => [i.id],
  decode(reply) {
    if (reply === null) return null;
    const r = array('get', reply, 4);
    return {
      payload: textOrNull('get', r[0], 'the payload'),
      meta: text('get', r[1], 'the meta'),
      state: oneOf('get', r[2], TASK_STATES, 'the state'),
      progress: textOrNull('get', r[3], 'the progress'),
    };
  },
};

/**
 * A finished task's kept outcome (lua/include/outcomes.lua), its body read by state: a done task's
 * result JSON (null for none), a dead one's last error, a merged one's task it was merged into.
 */
export type KeptOutcome = { finishedAt: number; attempts: number; keepUntil: number } & (
  { state: 'done'; result: string | null } | { state: 'dead'; error: string } | { state: 'merged'; into: string } | { state: 'expired' | 'cancelled' }
);

/** The kept outcome's one string: 'state|finished-at|attempts|keep-until|body' (the body may hold '|'). */
function kept(stored: string): KeptOutcome {
  const m = /^([^|]*)\|([^|]*)\|([^|]*)\|([^|]*)\|([\s\S]*)$/.exec(stored);
  if (!m) throw new ReplyError('result', `the outcome: expected 'state|finished-at|attempts|keep-until|body', got ${JSON.stringify(stored.slice(0, 80))}`);
  const [, state, finishedAt, attempts, keepUntil, body] = m;
  const base = { finishedAt: num('result', finishedAt, 'finished-at'), attempts: num('result', attempts, 'the attempts'), keepUntil: num('result', keepUntil, 'keep-until') };
  const s = oneOf('result', state, ['done', 'dead', 'merged', 'expired', 'cancelled'] as const, 'the outcome state');
  if (s === 'done') return { ...base, state: s, result: body === '' ? null : body };
  if (s === 'dead') return { ...base, state: s, error: body };
  if (s === 'merged') return { ...base, state: s, into: body };
  return { ...base, state: s };
}

/** What result.lua knows of a task: its live record, its kept outcome, or nothing. */
export type ResultReply = { stream: string } & (
  { kind: 'live'; meta: string; state: Exclude<TaskState, 'waiting'>; progress: string | null; diedAt: number | null } | { kind: 'kept'; kept: KeptOutcome } | { kind: 'none' }
);

const LIVE_STATES = ['delayed', 'ready', 'active', 'dead'] as const;

/** `stream`: answer the events stream's latest entry id too ('' otherwise). */
export const result: Codec<{ id: string; stream: boolean }, ResultReply> = {
  encode: (i) => [i.id, i.stream ? '1' : '0'],
  decode(reply) {
    const r = array('result', reply, 6);
    const stream = text('result', r[5], 'the stream id');
    const kind = oneOf('result', r[0], ['live', 'kept', 'none'] as const, 'the kind');
    if (kind === 'none') return { kind, stream };
    if (kind === 'kept') return { kind, kept: kept(text('result', r[1], 'the outcome')), stream };
    return {
      kind,
      meta: text('result', r[1], 'the meta'),
      state: oneOf('result', r[2], LIVE_STATES, 'the state'),
      progress: maybeText('result', r[3], 'the progress'),
      diedAt: maybeNum('result', r[4], 'died-at'),
      stream,
    };
  },
};

export interface StatsReply {
  ready: number;
  delayed: number;
  active: number;
  dead: number;
  waiting: number;
  paused: boolean;
  /** The queue's lifetime counters, by field of its `counts` hash ('completed', 'completed|<name>', ...). */
  counters: Map<string, number>;
}

export const stats: Codec<Record<string, never>, StatsReply> = {
  encode: () => [],
  decode(reply) {
    const r = array('stats', reply, (n) => n >= 6 && n % 2 === 0);
    const counters = new Map<string, number>();
    for (let i = 6; i < r.length; i += 2) counters.set(text('stats', r[i], 'a counter name'), num('stats', r[i + 1], 'a count'));
    return {
      ready: num('stats', r[0], 'ready'),
      delayed: num('stats', r[1], 'delayed'),
      active: num('stats', r[2], 'active'),
      dead: num('stats', r[3], 'dead'),
      waiting: num('stats', r[4], 'waiting'),
      paused: flag('stats', r[5], 'paused'),
      counters,
    };
  },
};

export interface ListInput {
  state: TaskState;
  offset: number;
  limit: number;
  /** Most payload bytes per task; 0 for whole payloads. */
  preview: number;
}

/** One task of a page: its stored record, payload and progress cut to `preview` bytes when asked. */
export interface ListedRecord {
  id: string;
  /** The payload (or its first bytes); null when the record has none (damaged). */
  payload: string | null;
  /** The whole payload's size in bytes. */
  bytes: number;
  meta: string;
  /** The run-at (delayed), lease end (active), died-at (dead), unsettled dependencies (waiting); null for ready. */
  score: number | null;
  /** The progress JSON (or its first bytes), or null. */
  progress: string | null;
}

export interface ListReply {
  now: number;
  /** Tasks in that state. */
  total: number;
  tasks: ListedRecord[];
}

/** Entries per task in a list reply. */
const LISTED_FIELDS = 6;

export const list: Codec<ListInput, ListReply> = {
  encode: (i) => [i.state, i.offset, i.limit, i.preview],
  decode(reply, input) {
    const r = array('list', reply, (n) => n >= 2 && (n - 2) % LISTED_FIELDS === 0 && (n - 2) / LISTED_FIELDS <= input.limit);
    const tasks: ListedRecord[] = [];
    for (let i = 2; i < r.length; i += LISTED_FIELDS) {
      tasks.push({
        id: text('list', r[i], 'an id'),
        payload: textOrNull('list', r[i + 1], 'a payload'),
        bytes: num('list', r[i + 2], 'a size'),
        meta: text('list', r[i + 3], 'a meta'),
        score: maybeNum('list', r[i + 4], 'a score'),
        progress: textOrNull('list', r[i + 5], 'a progress'),
      });
    }
    return { now: num('list', r[0], 'now'), total: num('list', r[1], 'the total'), tasks };
  },
};

/** A command line the ACL user may not run: its index in the input, and Redis's reason ('' when it is the ACL). */
export interface AccessRefusal {
  line: number;
  reason: string;
}

/** The lines refused, or null when this Redis cannot be asked (no redis.acl_check_cmd: before 7.0). */
export const access: Codec<{ lines: ReadonlyArray<readonly string[]> }, AccessRefusal[] | null> = {
  encode: (i) => i.lines.map((line) => JSON.stringify(line)),
  decode(reply, input) {
    if (reply === null) return null;
    const r = array('access', reply, (n) => n % 2 === 0);
    const refused: AccessRefusal[] = [];
    for (let i = 0; i < r.length; i += 2) {
      const line = num('access', r[i], 'a line index') - 1;
      if (!Number.isInteger(line) || line < 0 || line >= input.lines.length)
        throw new ReplyError('access', `line index ${String(r[i])} is not one of the ${input.lines.length} lines asked about`);
      refused.push({ line, reason: text('access', r[i + 1], 'a reason') });
    }
    return refused;
  },
};
