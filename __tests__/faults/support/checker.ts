/**
 * The checker, after Jepsen's queue checker: what producers were told, what workers did, and what
 * Redis holds must agree.
 *
 * - A History records every put as ok (resolved, with its hash), failed (a definite, typed error)
 *   or indeterminate (no answer: ERR_INDETERMINATE or ERR_TIMEOUT, or an untyped error while the
 *   connection was being disturbed). An untyped error on a quiet connection is a bug of its own and
 *   is counted apart (`untyped`).
 * - analyse() compares it with the oracle's executions once the queue has drained.
 * - checkInvariants() reads the queue's keys directly, in one MULTI so the snapshot is consistent
 *   even while workers run, and lists every broken rule.
 *
 * Payloads carry a `label` naming them: one label, one payload, one identity. Indeterminate puts
 * have no hash, so results are matched by label.
 */
import type { RedisClientType } from 'redis';
import { DocketError } from '../../../lib';
import type { Execution } from './oracle';

export type PutOutcome = 'ok' | 'failed' | 'indeterminate' | 'untyped';

/** Codes meaning "sent, but no answer": the put may or may not have happened. */
const INDETERMINATE = new Set(['ERR_INDETERMINATE', 'ERR_TIMEOUT']);

interface LabelRecord {
  hashes: Set<string>;
  ok: number;
  failed: number;
  indeterminate: number;
}

export interface Figures {
  puts: number;
  ok: number;
  failed: number;
  indeterminate: number;
  untyped: number;
  /** Labels whose ok puts were answered with different hashes. */
  hashConflicts: number;
  executions: number;
  lost: number;
  unexpected: number;
  duplicated: number;
  recovered: number;
  dead: number;
  expired: number;
}

/** How one rejected put is classified; `disturbed` says whether a fault was active at the time. */
export function classify(err: unknown, disturbed: boolean): PutOutcome {
  const e = err as { code?: unknown; docket?: unknown };
  if (typeof e?.code === 'string' && INDETERMINATE.has(e.code)) return 'indeterminate';
  // A DocketError of this process, or one that crossed from a child (ChildError carries `docket`).
  if (err instanceof DocketError || e?.docket === true) return 'failed';
  return disturbed ? 'indeterminate' : 'untyped';
}

export class History {
  private readonly records = new Map<string, LabelRecord>();
  private counts = { puts: 0, untyped: 0 };

  ok(label: string, hash: string): void {
    const r = this.record(label);
    r.ok++;
    r.hashes.add(hash);
  }

  error(label: string, err: unknown, disturbed = false): PutOutcome {
    const outcome = classify(err, disturbed);
    if (outcome === 'untyped') this.counts.untyped++;
    const r = this.record(label);
    if (outcome === 'failed') r.failed++;
    else r.indeterminate++; // an untyped error leaves the outcome unknown too
    return outcome;
  }

  /** Records a putMany (or put) call: every label gets the outcome of its item, or of the call. */
  async track(labels: string[], call: Promise<Array<{ hash: string }>>, disturbed: () => boolean = () => false): Promise<void> {
    try {
      const results = await call;
      labels.forEach((label, i) => this.ok(label, results[i].hash));
    } catch (err) {
      const now = disturbed();
      for (const label of labels) this.error(label, err, now);
    }
  }

  /** Every label put so far with its record. */
  entries(): Array<[string, Readonly<LabelRecord>]> {
    return [...this.records];
  }

  get untyped(): number {
    return this.counts.untyped;
  }

  get puts(): number {
    return this.counts.puts;
  }

  private record(label: string): LabelRecord {
    this.counts.puts++;
    let r = this.records.get(label);
    if (!r) this.records.set(label, (r = { hashes: new Set(), ok: 0, failed: 0, indeterminate: 0 }));
    return r;
  }
}

/** What the queue kept that excuses an ok put for never running: dead tasks, the expired count. */
export interface Leftovers {
  dead: Set<string>;
  expired: number;
}

export function analyse(history: History, executions: Execution[], left: Leftovers): Figures {
  const byLabel = new Map<string, Execution[]>();
  for (const e of executions) byLabel.set(e.label, [...(byLabel.get(e.label) ?? []), e]);
  const f: Figures = {
    puts: history.puts,
    ok: 0,
    failed: 0,
    indeterminate: 0,
    untyped: history.untyped,
    hashConflicts: 0,
    executions: executions.length,
    lost: 0,
    unexpected: 0,
    duplicated: 0,
    recovered: 0,
    dead: 0,
    expired: left.expired,
  };
  const known = new Map(history.entries());
  for (const [label, r] of known) tallyPuts(f, r, byLabel.get(label) ?? [], left);
  for (const [label, ran] of byLabel) tallyRuns(f, known.get(label), ran);
  // Expiry leaves only a count, not ids: let it excuse that many missing tasks.
  f.lost = Math.max(0, f.lost - left.expired);
  return f;
}

/** One label's puts: were they answered consistently, and did an acknowledged one run? */
function tallyPuts(f: Figures, r: Readonly<LabelRecord>, ran: Execution[], left: Leftovers): void {
  f.ok += r.ok;
  f.failed += r.failed;
  f.indeterminate += r.indeterminate;
  if (r.hashes.size > 1) f.hashConflicts++;
  if (ran.length === 0 && r.ok > 0) {
    if ([...r.hashes].some((h) => left.dead.has(h))) f.dead++;
    else f.lost++;
  }
  if (ran.length > 0 && r.ok === 0 && r.indeterminate > 0) f.recovered++;
}

/** One label's executions: which should not have happened, and how many beyond the first. */
function tallyRuns(f: Figures, r: Readonly<LabelRecord> | undefined, ran: Execution[]): void {
  // Never put, only refused, or run under a hash no put returned.
  const strays = !r || (r.ok === 0 && r.indeterminate === 0) ? ran.length : ran.filter((e) => r.ok > 0 && !r.hashes.has(e.hash)).length;
  f.unexpected += strays;
  f.duplicated += Math.max(0, ran.length - strays - 1);
}

/** One line for the test output. */
export function summary(name: string, f: Figures, extra: Record<string, string | number> = {}): string {
  const parts = Object.entries({ ...f, ...extra }).map(([k, v]) => `${k}=${v}`);
  return `[${name}] ${parts.join(' ')}`;
}

/**
 * The queue's keys, written out from docs/design.md and the Lua headers rather than taken from
 * lib/domain/keys.ts: the checker must not share a bug with the code it checks. The last three came with
 * issue 3: `acked` (recent ack tokens, with a TTL), `workers` (heartbeats), `held` (worker|task index).
 * Issue 5 added `schedules` and `occurred` (recurring schedules), and the priority levels: the
 * ready lists `ready1`..`ready9` and their index `levels`, and the fair groups: `grouped` (ready
 * tasks that have a group) and `gtags` (each group's latest tag); and the group limits: `parked`
 * ('<group>|<order>|<id>' ready tasks held back by their group's limit), `gactive` (active tasks per
 * group) and `glimits` (the limits). Issue 6 added `paused` (present while claims are paused) and
 * `events` (the capped stream of task outcomes), and one key per prefix outside every queue:
 * `<prefix>:queues`, the registry of queue names. Issue 14 added outcomes and de-dup modes
 * (`results`, `kept`, `progress`, `windows`, `waiting`, renamed `redirects` by issue 32); issue 15 the queue limits (`limits`,
 * `rates`, `gheld`) and dependencies: `blocked` (tasks waiting on others), `after` and
 * `dependents` (lex indexes, '<id>|<ref>|<ref queue>' and '<ref>|<id>|<queue>'), `deplist`, and
 * the steps between them, `settle` (this queue's) and `outbox` (other queues'). Issue 19 added
 * `logs` (each task's log lines). Compact storage then replaced the record hash `meta` and the
 * payload hash `data` with one hash, `tasks`: one field a task, `<record JSON>\n<payload>`. The
 * old keys (`meta`, `data`, `waiting`) are left out on purpose: nothing may write them any more, so
 * one that appears is a stray.
 */
const LEVEL_LISTS = ['ready1', 'ready2', 'ready3', 'ready4', 'ready5', 'ready6', 'ready7', 'ready8', 'ready9'] as const;
const SUFFIXES = [
  'tasks',
  'delayed',
  'ready',
  'active',
  'dead',
  'counts',
  'wake',
  'acked',
  'workers',
  'held',
  // The workers that hold leases, with their heartbeat deadlines (issue 43).
  'busy',
  'schedules',
  'occurred',
  'levels',
  ...LEVEL_LISTS,
  'grouped',
  'gtags',
  'parked',
  'gactive',
  'glimits',
  'paused',
  'events',
  'results',
  'kept',
  'progress',
  'windows',
  'redirects',
  'limits',
  'rates',
  'gheld',
  'blocked',
  'after',
  'dependents',
  'deplist',
  'settle',
  'outbox',
  'logs',
  // The done history (on by default) and the queue's own caps (keep()).
  'done',
  'history',
  'keep',
  // The day's throughput per minute; paused groups; running tasks cancelled (issue 30).
  'minutes',
  'gpaused',
  'cancels',
] as const;

export function layout(prefix: string, queue: string): Record<(typeof SUFFIXES)[number], string> {
  return Object.fromEntries(SUFFIXES.map((s) => [s, `${prefix}:{${queue}}:${s}`])) as Record<(typeof SUFFIXES)[number], string>;
}

export async function leftovers(client: RedisClientType, prefix: string, queue: string): Promise<Leftovers> {
  const k = layout(prefix, queue);
  const [dead, expired] = await Promise.all([client.zRange(k.dead, 0, -1), client.hGet(k.counts, 'expired')]);
  return { dead: new Set(dead), expired: Number(expired ?? 0) };
}

/** Tasks the queue still holds (a task exists exactly when it has a `tasks` field). */
export async function taskCount(client: RedisClientType, prefix: string, queue: string): Promise<number> {
  return client.hLen(layout(prefix, queue).tasks);
}

/** Tasks still to run: all but the dead ones. 0 means the queue has drained. */
export async function pending(client: RedisClientType, prefix: string, queue: string): Promise<number> {
  const k = layout(prefix, queue);
  const [tasks, dead] = (await client.multi().hLen(k.tasks).zCard(k.dead).exec()) as unknown as [number, number];
  return tasks - dead;
}

/** The record part of a task's field, with what the writer leaves out put back (n 0, r = c, m 5). */
export interface TaskRecord {
  n: number;
  r: number;
  m: number;
  c?: number;
  p?: number;
  g?: string;
  w?: string;
  a?: number;
  lg?: number;
  [field: string]: unknown;
}

/**
 * A `tasks` field read on its own terms, not with lib's reader: the first newline ends the record
 * (JSON escapes newlines inside strings), the payload follows. null when the field is damaged: no
 * newline, or a record part that is neither a JSON object nor a creation time alone.
 */
export function parseTask(field: string): { record: TaskRecord; payload: string } | null {
  const cut = field.indexOf('\n');
  if (cut < 0) return null;
  let record: unknown;
  try {
    record = JSON.parse(field.slice(0, cut));
  } catch {
    return null;
  }
  // A record with its creation time alone is that number (lua/include/record.lua).
  if (typeof record === 'number' && Number.isInteger(record)) record = { c: record };
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return null;
  const r = record as Partial<TaskRecord>;
  return { record: { ...r, n: r.n ?? 0, r: r.r ?? (r.c as number), m: r.m ?? 5 }, payload: field.slice(cut + 1) };
}

interface Snapshot {
  /** Every task: its id and its field in `tasks`, whole or not. */
  tasks: Set<string>;
  /** The records of the tasks whose field is whole. */
  records: Map<string, TaskRecord>;
  /** Tasks whose field is not `<JSON object>\n<payload>`. */
  damaged: string[];
  /** Every member of delayed, ready, active and dead, with how often it occurs there. */
  places: Map<string, number>;
  active: string[];
  held: string[];
  /** The ids in each ready list, by priority level (0 is `ready`). */
  byLevel: string[][];
  /** What the `levels` index lists: levels, and 'g' for the grouped tasks. */
  levels: Set<string>;
  /** Ready tasks that have a group. */
  grouped: string[];
  /** Members of `parked` ('<group>|<order>|<id>'). */
  parked: string[];
  /** Active tasks per group, as `gactive` counts them. */
  gactive: Record<string, string>;
  /** Tasks with a stored progress. */
  progress: string[];
  /** Tasks with log lines. */
  logs: string[];
  /** until-start pointers: base id -> id of its waiting task. */
  redirects: Record<string, string>;
  /** Tasks waiting on their dependencies. */
  blocked: string[];
  /** Members of `after` ('<id>|<ref>|<ref queue>'). */
  after: string[];
  /** Tasks with a dependency list. */
  deplist: string[];
}

/** All of a queue's state at one instant: one MULTI, so it is consistent even while workers run. */
async function snapshot(client: RedisClientType, prefix: string, queue: string): Promise<Snapshot> {
  const k = layout(prefix, queue);
  const replies = (await client
    .multi()
    .hGetAll(k.tasks)
    .zRange(k.delayed, 0, -1)
    .lRange(k.ready, 0, -1)
    .zRange(k.active, 0, -1)
    .zRange(k.dead, 0, -1)
    .zRange(k.held, 0, -1)
    .zRange(k.levels, 0, -1)
    .lRange(k.ready1, 0, -1)
    .lRange(k.ready2, 0, -1)
    .lRange(k.ready3, 0, -1)
    .lRange(k.ready4, 0, -1)
    .lRange(k.ready5, 0, -1)
    .lRange(k.ready6, 0, -1)
    .lRange(k.ready7, 0, -1)
    .lRange(k.ready8, 0, -1)
    .lRange(k.ready9, 0, -1)
    .zRange(k.grouped, 0, -1)
    .zRange(k.parked, 0, -1)
    .hGetAll(k.gactive)
    .hKeys(k.progress)
    .hGetAll(k.redirects)
    .zRange(k.blocked, 0, -1)
    .zRange(k.after, 0, -1)
    .hKeys(k.deplist)
    .hKeys(k.logs)
    .exec()) as unknown[];
  // A log is a head `<id>` and its chunks `<id>|<n>` (lua/include/logs.lua): their task is the
  // head's; a chunk without its head stays as it is, so it is reported as a log without a task.
  const logFields = replies.pop() as string[];
  const heads = new Set(logFields.filter((f) => !f.includes('|')));
  const logs = [...heads, ...logFields.filter((f) => f.includes('|') && !heads.has(f.slice(0, f.indexOf('|'))))];
  const deplist = replies.pop() as string[];
  const after = replies.pop() as string[];
  const blocked = replies.pop() as string[];
  const redirects = replies.pop() as Record<string, string>;
  const progress = replies.pop() as string[];
  const gactive = replies.pop() as Record<string, string>;
  const [fields, delayed, ready, active, dead, held, levels, ...rest] = replies as [Record<string, string>, ...string[][]];
  const parked = rest.pop()!;
  const grouped = rest.pop()!;
  const byLevel = [ready, ...rest];
  const places = new Map<string, number>();
  const parkedIds = parked.map((m) => m.slice(m.lastIndexOf('|') + 1));
  for (const id of [...delayed, ...byLevel.flat(), ...grouped, ...parkedIds, ...active, ...dead, ...blocked]) places.set(id, (places.get(id) ?? 0) + 1);
  const records = new Map<string, TaskRecord>();
  const damaged: string[] = [];
  for (const [id, field] of Object.entries(fields)) {
    const task = parseTask(field);
    if (task) records.set(id, task.record);
    else damaged.push(id);
  }
  return {
    tasks: new Set(Object.keys(fields)),
    records,
    damaged,
    places,
    active,
    held,
    byLevel,
    levels: new Set(levels),
    grouped,
    parked,
    gactive,
    progress,
    logs,
    redirects,
    blocked,
    after,
    deplist,
  };
}

/** Each ready task waits in the list of its own level (or, with a group, in `grouped`), and every non-empty level is indexed. */
function checkLevels(s: Snapshot, report: Report): void {
  // Only whole records are read: a damaged one is reported once, by checkRecords.
  const record = (id: string) => s.records.get(id)!;
  const levelOf = (id: string) => record(id).p ?? 0;
  if (s.grouped.length > 0 && !s.levels.has('g')) report('grouped tasks missing from the levels index', ['g']);
  report(
    'grouped task without a group',
    s.grouped.filter((id) => s.records.has(id) && record(id).g === undefined),
  );
  report(
    'task with a group in a ready list',
    s.byLevel.flat().filter((id) => s.records.has(id) && record(id).g !== undefined),
  );
  report(
    'parked task not under its own group',
    s.parked.filter((m) => {
      const id = m.slice(m.lastIndexOf('|') + 1);
      return s.records.has(id) && !m.startsWith(`${record(id).g}|`);
    }),
  );
  s.byLevel.forEach((ids, level) => {
    report(
      `task in the ready list of level ${level} but of another level`,
      ids.filter((id) => s.records.has(id) && levelOf(id) !== level),
    );
    if (level > 0 && ids.length > 0 && !s.levels.has(String(level))) report('non-empty level missing from the levels index', [String(level)]);
  });
}

type Report = (rule: string, ids: string[]) => void;

/** Every task is in exactly one state structure, and its field is whole; nothing refers to a task that is gone. */
function checkRecords(s: Snapshot, report: Report): void {
  const ids = [...s.tasks];
  report(
    'task in no state structure',
    ids.filter((id) => !s.places.has(id)),
  );
  report(
    'task in more than one state structure (or twice in ready)',
    [...s.places].filter(([, n]) => n > 1).map(([id]) => id),
  );
  report(
    'state member without its task',
    [...s.places.keys()].filter((id) => !s.tasks.has(id)),
  );
  // Record and payload live in one field, so neither can be left without the other; what is left
  // to go wrong is the field itself: no newline (a record without a payload, or a payload without
  // a record), or a record part that is not a JSON object.
  report('damaged task field (not a JSON record, a newline and its payload)', s.damaged);
  report(
    'progress without its task',
    s.progress.filter((id) => !s.tasks.has(id)),
  );
  report(
    'log without its task',
    s.logs.filter((id) => !s.tasks.has(id)),
  );
  report(
    'log of a task not flagged lg (its deletion would leave it)',
    s.logs.filter((id) => s.records.has(id) && s.records.get(id)!.lg === undefined),
  );
  report(
    'until-start pointer to no task',
    Object.values(s.redirects).filter((id) => !s.tasks.has(id)),
  );
}

/** A task waits on its dependencies exactly while it is marked so, and only waiting tasks have unsettled ones. */
function checkWaiting(s: Snapshot, report: Report): void {
  const blocked = new Set(s.blocked);
  const damaged = new Set(s.damaged);
  const marked = new Set([...s.records].filter(([, r]) => r.a !== undefined).map(([id]) => id));
  report(
    'task marked waiting but not in blocked',
    [...marked].filter((id) => !blocked.has(id)),
  );
  report(
    'blocked task not marked waiting',
    s.blocked.filter((id) => !damaged.has(id) && !marked.has(id)),
  );
  report(
    'unsettled dependency of a task that is not waiting',
    s.after.filter((m) => !blocked.has(m.slice(0, m.indexOf('|')))),
  );
  report(
    'waiting task with no unsettled dependency',
    s.blocked.filter((id) => !s.after.some((m) => m.startsWith(`${id}|`))),
  );
  report(
    'dependency list without its task',
    s.deplist.filter((id) => !s.tasks.has(id)),
  );
}

/** The `held` index (worker|task) lists exactly the active leases, under their holders. */
function checkLeases(s: Snapshot, report: Report): void {
  const damaged = new Set(s.damaged);
  const leases = s.active.filter((id) => !damaged.has(id)).map((id) => `${s.records.get(id)?.w}|${id}`);
  const held = new Set(s.held);
  const leased = new Set(leases);
  report(
    'active task missing from the held index',
    leases.filter((entry) => !held.has(entry)),
  );
  report(
    'held index entry without its active lease',
    s.held.filter((entry) => !leased.has(entry) && !damaged.has(entry.slice(entry.lastIndexOf('|') + 1))),
  );
}

/** `gactive` counts exactly the active tasks of each group. */
function checkGroupCounts(s: Snapshot, report: Report): void {
  const counted = new Map<string, number>();
  for (const id of s.active) {
    const g = s.records.get(id)?.g;
    if (g !== undefined) counted.set(g, (counted.get(g) ?? 0) + 1);
  }
  const groups = new Set([...counted.keys(), ...Object.keys(s.gactive)]);
  report(
    'group whose active count is off',
    [...groups].filter((g) => Number(s.gactive[g] ?? 0) !== (counted.get(g) ?? 0)),
  );
}

/**
 * Every broken invariant, as readable lines; [] when all hold. `others`: the other queues under
 * the same prefix, whose keys are not strays.
 */
export async function checkInvariants(client: RedisClientType, prefix: string, queue: string, others: string[] = []): Promise<string[]> {
  const problems: string[] = [];
  const report: Report = (rule, ids) => {
    if (ids.length > 0) problems.push(`${rule}: ${ids.length} (e.g. ${ids.slice(0, 3).join(', ')})`);
  };
  const s = await snapshot(client, prefix, queue);
  checkRecords(s, report);
  checkLeases(s, report);
  checkLevels(s, report);
  checkGroupCounts(s, report);
  checkWaiting(s, report);
  const allowed = [queue, ...others].flatMap((q) => Object.values(layout(prefix, q)));
  report('key outside the fixed key set', await strayKeys(client, prefix, new Set([...allowed, `${prefix}:queues`])));
  return problems;
}

async function strayKeys(client: RedisClientType, prefix: string, allowed: Set<string>): Promise<string[]> {
  const strays: string[] = [];
  for await (const key of client.scanIterator({ MATCH: `${prefix}:*`, COUNT: 1000 })) if (!allowed.has(key)) strays.push(key);
  return strays;
}
