/**
 * claim: on the server's clock, ack the tasks a worker finished, then promote due tasks, re-queue
 * lapsed leases, trim the dead, drop expired tasks, and lease up to `count` ready tasks. Acking and
 * claiming in one call is one round trip per task for a busy worker; `count` 0 only acks.
 */
import { DONE_HISTORY, HISTORY_BY_DEFAULT } from '../domain/domain';
import { DEPS_KEYS, LEVEL_KEYS, script } from '../redis/op';
import { array, flag, maybeNum, maybeText, num, text, textOrNull } from '../redis/reply';

/** A finished task to ack in a claim call. */
export interface AckItem {
  id: string;
  /** The lease token claim handed out for it. */
  token: string;
  /** The handler's result as JSON, for its kept outcome (keepResult) and the history; '' for none. */
  result: string;
}

export interface ClaimInput {
  /** Most tasks to lease; 0 only acks. */
  count: number;
  /** Lease length (ms). */
  lease: number;
  /** Random lease-token prefix: the i-th task leased gets `<token>:<i>`. */
  token: string;
  worker: string;
  deadMaxCount: number;
  deadMaxAge: number;
  /** How long (ms) an ack's token is remembered, so a retried ack is answered the same. */
  remember: number;
  events: number;
  /** The worker's keepResult (ms), 0 for none. */
  keep: number;
  /** Done tasks kept when the queue has no keep() of its own (lua/include/history.lua); default per HISTORY_BY_DEFAULT. */
  doneMaxCount?: number;
  /** How long (ms) a done task is kept, likewise. */
  doneMaxAge?: number;
  /** Write the lifecycle events active, lapsed, retrying and drained (the scheduler's option events: 'all'). Default false. */
  lifecycle?: boolean;
  /**
   * An idle worker's heartbeat, which its claims renew (lua/include/alive.lua): its ttl (ms) once it
   * holds tasks, its ttl while it stays idle, and whether it still runs tasks. Absent for a busy
   * worker (its beats renew it) and for claim() callers.
   */
  heartbeat?: { beat: number; rest: number; holding: boolean };
  acks: readonly AckItem[];
}

/** A task claim leased, as stored: the caller parses its payload and trace. */
export interface LeasedRecord {
  id: string;
  /** Its canonical JSON payload; null when the record has none (damaged). */
  payload: string | null;
  attempt: number;
  runAt: number;
  expireAt: number | null;
  /** The producer's encoded trace context, or ''. */
  trace: string;
  keepResult: number | null;
  timeout: number | null;
  name: string | null;
  group: string | null;
}

export interface ClaimReply {
  /** The server's now (ms). */
  now: number;
  /** When to look again: the next run-at or lease end, or null when nothing waits. */
  nextDue: number | null;
  /** When the outbox has steps due for other queues (ms), or null. */
  carryAt: number | null;
  /**
   * The lease step stopped at its bound of work (entries passed over: ghosts, expired or parked
   * tasks) before it had leased `count`: claim again at once, behind the entries it dropped.
   */
  stopped: boolean;
  /** For each ack, in order: true when acked, false when its lease was lost. */
  acked: boolean[];
  leased: LeasedRecord[];
  /** For a claim with a heartbeat: whether the queue has stored schedules (false otherwise). */
  schedules: boolean;
}

/** Entries per leased task in a claim reply: the ten of claim.lua's Returns, id to group (scripts.test checks the count). */
export const LEASED_FIELDS = 10;

export const claim = script<ClaimInput, ClaimReply>({
  name: 'claim',
  flags: 'allow-oom',
  keys: [
    'delayed',
    'ready',
    'active',
    'tasks',
    'dead',
    'counts',
    'wake',
    'held',
    'acked',
    ...LEVEL_KEYS,
    'paused',
    'events',
    'results',
    'kept',
    'progress',
    'redirects',
    'limits',
    'rates',
    'gheld',
    ...DEPS_KEYS,
    'logs',
    'moved',
    'done',
    'history',
    'keep',
    'minutes',
    'cancels',
    'workers',
    'busy',
    'schedules',
  ],
  args: ['count', 'lease', 'token', 'worker', 'deadMaxCount', 'deadMaxAge', 'remember', 'events', 'keep', 'doneMaxCount', 'doneMaxAge', 'lifecycle', 'beat', 'rest', 'holding', 'acks'],
  each: ['id', 'ackToken', 'result'],
  encode(i) {
    // A queue without keep() of its own keeps what the defaults say (lua/include/history.lua).
    const done = [i.doneMaxCount ?? (HISTORY_BY_DEFAULT ? DONE_HISTORY.count : 0), i.doneMaxAge ?? DONE_HISTORY.age];
    const argv: Array<string | number> = [
      i.count,
      i.lease,
      i.token,
      i.worker,
      i.deadMaxCount,
      i.deadMaxAge,
      i.remember,
      i.events,
      i.keep,
      ...done,
      i.lifecycle ? 1 : 0,
      ...heartbeatArgs(i),
      i.acks.length,
    ];
    for (const a of i.acks) argv.push(a.id, a.token, a.result);
    return argv;
  },
  decode(reply, input) {
    const head = 5 + input.acks.length;
    const r = array('claim', reply, (n) => n >= head && (n - head) % LEASED_FIELDS === 0 && (n - head) / LEASED_FIELDS <= input.count);
    const leased: LeasedRecord[] = [];
    for (let i = head; i < r.length; i += LEASED_FIELDS) {
      leased.push({
        id: text('claim', r[i], 'a leased id'),
        payload: textOrNull('claim', r[i + 1], 'a payload'),
        attempt: num('claim', r[i + 2], 'an attempt'),
        runAt: num('claim', r[i + 3], 'a run-at'),
        expireAt: maybeNum('claim', r[i + 4], 'an expire-at'),
        trace: text('claim', r[i + 5], 'a trace'),
        keepResult: maybeNum('claim', r[i + 6], 'a keepResult'),
        timeout: maybeNum('claim', r[i + 7], 'a timeout'),
        name: maybeText('claim', r[i + 8], 'a name'),
        group: maybeText('claim', r[i + 9], 'a group'),
      });
    }
    return {
      now: num('claim', r[0], 'now'),
      nextDue: maybeNum('claim', r[1], 'next-due'),
      carryAt: maybeNum('claim', r[2], 'the outbox due time'),
      stopped: flag('claim', r[3], 'stopped early'),
      acked: r.slice(5, head).map((ok) => flag('claim', ok, 'an ack')),
      leased,
      schedules: flag('claim', r[4], 'schedules'),
    };
  },
});

/** The heartbeat slots of a claim call: beat, rest, holding (all 0 for none). */
function heartbeatArgs({ heartbeat: h }: ClaimInput): number[] {
  return h ? [h.beat, h.rest, h.holding ? 1 : 0] : [0, 0, 0];
}
