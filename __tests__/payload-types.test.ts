/**
 * Which payload types compile, checked by `npm test`'s type check (tsc), not by jest: put, putMany
 * and every take data typed by an interface, and a typed queue (`queue<T>(name)`) makes put,
 * putMany, work, get and result agree on one type (`queue<T, R>`: its handlers' results too).
 * Each `@ts-expect-error` marks a line that must not compile; tsc fails on one that does (TS2578). Nothing here runs against Redis: the bodies are
 * only compiled, and queue.test.ts checks the behaviour. The one test below only keeps jest content.
 */
import type { Json, JsonCompatible, Queue, Scheduler, Task, TaskInfo, TaskOutcome } from '../lib';

/** True only when A and B are the same type (as in option-types.test.ts). */
type Equals<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** A payload declared as an interface: it has no implicit index signature, so it is not a Json. */
interface Mail {
  to: string;
  subject: string;
  cc?: string[];
  meta: { attempt: number; tags: readonly string[] };
}

/** An interface that is not JSON: a function field. */
interface WithCallback {
  to: string;
  onSent: () => void;
}

/** Not JSON either: JSON has no undefined, and the field is required. */
interface MaybeTo {
  to: string | undefined;
}

const mail: Mail = { to: 'ada@example.com', subject: 'hi', meta: { attempt: 1, tags: [] } };

/** The plain Scheduler methods: interface payloads compile, non-JSON ones do not, Json callers still do. */
async function plainPut(s: Scheduler, callback: WithCallback, maybe: MaybeTo, anything: unknown): Promise<void> {
  // Before put<T>, each of these three failed: "Type 'Mail' is not assignable to type 'Json'" (TS2345, TS2322).
  await s.put(mail);
  await s.putMany([{ data: mail }, { data: mail, options: { delay: 1000 } }]);
  await s.every('digest', { cron: '0 8 * * *' }, mail);

  // What compiled before still does: literals, mixed items, data typed Json, code generic over Json.
  await s.put({ to: 'x' }, { queue: 'email' });
  await s.putMany([{ data: 1 }, { data: 'two' }, { data: null }, { data: [3] }]);
  const json: Json = { a: [1, 'b', null] };
  await s.put(json);
  const wrap = <D extends Json>(data: D) => s.put(data);
  await wrap({ a: 1 });

  // @ts-expect-error a function field is not JSON
  await s.put(callback);
  // @ts-expect-error a function field is not JSON, in putMany too
  await s.putMany([{ data: callback }]);
  // @ts-expect-error nor in every
  await s.every('digest', 1000, callback);
  // @ts-expect-error a required field that may be undefined is not JSON
  await s.put(maybe);
  // @ts-expect-error unknown is not known to be JSON, as before
  await s.put(anything);
  // @ts-expect-error nor is a bigint
  await s.put({ n: 1n });

  // A sharded queue takes them as the Scheduler does.
  const sharded = s.sharded('mail', 4);
  await sharded.put(mail);
  await sharded.putMany([{ data: mail }, { data: mail, options: { delay: 1000 } }]);
  await sharded.put(json);
  // @ts-expect-error a function field is not JSON, sharded or not
  await sharded.put(callback);
  // @ts-expect-error nor in a sharded putMany
  await sharded.putMany([{ data: callback }]);
}

/** A typed queue: one payload type for put, putMany, work, get and result. */
async function typedQueue(s: Scheduler): Promise<void> {
  const email = s.queue<Mail>('email');
  await email.put(mail);
  await email.put({ to: 'a@x', subject: 'x', meta: { attempt: 1, tags: ['t'] } }, { delay: 5000 });
  await email.putMany([{ data: mail }, { data: mail, options: { priority: 3 } }]);

  // @ts-expect-error a wrong payload type: `to` is a string
  await email.put({ to: 42, subject: 'x', meta: { attempt: 1, tags: [] } });
  // @ts-expect-error a payload missing a field of Mail
  await email.put({ to: 'a@x' });
  // @ts-expect-error a field Mail does not have
  await email.put({ ...mail, body: 'hello' });
  // @ts-expect-error a wrong payload type in putMany
  await email.putMany([{ data: mail }, { data: { to: 'a@x' } }]);

  email.work(async (task) => {
    const to: string = task.data.to;
    const tags: readonly string[] = task.data.meta.tags;
    // @ts-expect-error a handler reading a field that Mail does not have
    return { to, tags: [...tags], body: task.data.body };
  });
  email.work({ send: async (task: Task<Mail>) => ({ to: task.data.to }) });
  // @ts-expect-error a handler of another payload type
  email.work(async (task: Task<{ phone: string }>) => ({ phone: task.data.phone }));

  const info = await email.get('hash');
  const infoType: Equals<typeof info, TaskInfo<Mail> | null> = true;
  const outcome = await email.result<{ sent: boolean }>('hash');
  const outcomeType: Equals<typeof outcome, TaskOutcome<{ sent: boolean }> | null> = true;
  const handleType: Equals<typeof email, Queue<Mail>> = true;
  const jobs = s.queue('jobs');
  const untyped: Equals<typeof jobs, Queue<Json>> = true;
  void [infoType, outcomeType, handleType, untyped];

  // @ts-expect-error a payload type that is not JSON is refused where the handle is made
  s.queue<WithCallback>('callbacks');
  // @ts-expect-error nor one with a field that may be undefined
  s.queue<MaybeTo>('maybe');
}

/** A handler's result declared as an interface: as with Mail, it is not a Json. */
interface Sent {
  id: string;
  at: number;
}

/** A typed result: queue<T, R>'s handlers return an R, and its result() reads one back. */
async function typedResult(s: Scheduler, sent: Sent): Promise<void> {
  const email = s.queue<Mail, Sent>('email');
  // A handler may return an interface-typed result, or nothing.
  email.work(async (task) => {
    void task.data.subject;
    return sent;
  });
  email.work(async () => {});
  email.work({ send: async () => sent, '*': async () => undefined });
  // @ts-expect-error a handler whose result is not a Sent
  email.work(async () => ({ id: 1, at: 2 }));
  // @ts-expect-error nor in a map of handlers
  email.work({ send: async () => 'sent' });

  const outcome = await email.result('hash');
  const outcomeType: Equals<typeof outcome, TaskOutcome<Sent> | null> = true;
  if (outcome?.state === 'done' && outcome.result !== null) {
    const id: string = outcome.result.id;
    void id;
  }
  // result<X>() still names another type for one call.
  const other = await email.result<{ legacy: true }>('hash');
  const otherType: Equals<typeof other, TaskOutcome<{ legacy: true }> | null> = true;
  // Without R, the result is Json, as before.
  const defaults: Equals<ReturnType<typeof s.queue<Mail>>, Queue<Mail, Json>> = true;
  void [outcomeType, otherType, defaults];

  // @ts-expect-error a result type that is not JSON is refused where the handle is made
  s.queue<Mail, WithCallback>('callbacks');
  // @ts-expect-error nor one with a field that may be undefined
  s.queue<Mail, MaybeTo>('maybe');
}

/** JsonCompatible itself: the type where it is JSON, never where it is not. */
const SHAPES = {
  interface: true as Equals<JsonCompatible<Mail>, { to: string; subject: string; cc?: string[]; meta: { attempt: number; tags: readonly string[] } }>,
  json: true as Equals<JsonCompatible<Json>, Json>,
  primitive: true as Equals<JsonCompatible<string | number | boolean | null>, string | number | boolean | null>,
  callback: true as Equals<JsonCompatible<WithCallback>, { to: string; onSent: never }>,
  unknown: true as Equals<JsonCompatible<unknown>, never>,
  undefined: true as Equals<JsonCompatible<undefined>, never>,
} satisfies Record<string, true>;

describe('payload types', () => {
  it('are checked by tsc (this file compiles only when each line above holds)', () => {
    expect([typeof plainPut, typeof typedQueue, typeof typedResult]).toEqual(['function', 'function', 'function']);
    expect(Object.values(SHAPES).every((holds) => holds)).toBe(true);
  });
});
