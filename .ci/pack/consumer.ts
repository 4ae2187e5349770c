/**
 * A typed consumer of the installed package: .ci/pack-check copies it into the scratch project
 * and runs `tsc --strict --noEmit` on it, so the shipped declarations (dist/*.d.ts, through the
 * `types` condition of `exports` or the top-level `types`) must resolve and check as users see
 * them. It is type-checked only, never run. The `@ts-expect-error` lines fail the check if the
 * types ever loosen into `any`.
 */
import { createClient } from 'redis';
import {
  createScheduler,
  OutOfMemoryError,
  ValidationError,
  type Handler,
  type Json,
  type PutOptions,
  type PutResult,
  type Queue,
  type Scheduler,
  type SchedulerOptions,
  type Task,
  type TaskOutcome,
  type Worker,
  type WorkOptions,
} from 'docket';

/** An `interface`, not a `type`: put<T> takes data typed so, which plain `Json` refuses. */
interface Email {
  to: string;
  template: 'welcome' | 'reset';
  vars?: { name: string };
}

export async function service(url: string): Promise<{ scheduler: Scheduler; worker: Worker }> {
  const options: SchedulerOptions = { url, prefix: 'app', queue: 'email', commandTimeout: { seconds: 2 }, onWarning: (message: string) => console.warn(message) };
  const scheduler = await createScheduler(options);

  const when: PutOptions = { delay: { minutes: 5 }, key: 'welcome:ada', keepResult: { hours: 1 } };
  const put: PutResult = await scheduler.put<Email>({ to: 'ada@example.com', template: 'welcome' }, when);
  const fresh: boolean = put.added;
  const hash: string = put.hash;
  const many: PutResult[] = await scheduler.putMany([{ data: { n: 1 } }, { data: 'two', options: { priority: true } }]);

  const send: Handler<Email> = async (task: Task<Email>, signal: AbortSignal): Promise<Json> => {
    signal.throwIfAborted();
    const to: string = task.data.to;
    return { sent: to, attempt: task.attempt };
  };
  const work: WorkOptions = { queue: 'email', concurrency: 4, onError: (err: unknown) => console.error(err) };
  const worker = scheduler.work<Email>(send, work);

  const outcome: TaskOutcome<{ sent: string }> | null = await scheduler.result<{ sent: string }>(hash, { wait: { seconds: 30 } });
  if (outcome?.state === 'done') console.log(outcome.result?.sent, fresh, many.length);
  return { scheduler, worker };
}

/** Your own client (node-redis 6 here: the scratch project installs `redis@6`, what `npm i redis` installs today): docket uses it and leaves it open. */
export async function withClient(): Promise<void> {
  const client = createClient({ url: process.env.REDIS_URL });
  await client.connect();
  const scheduler = await createScheduler({ client });
  try {
    await scheduler.put({ alert: 'disk almost full' }, { priority: true });
  } catch (err) {
    if (err instanceof OutOfMemoryError || err instanceof ValidationError) console.error(err.code);
    throw err;
  } finally {
    await scheduler.close();
    await client.close();
  }
}

export async function refusals(scheduler: Scheduler): Promise<void> {
  // @ts-expect-error a misspelled option is a type error, as it is a ValidationError at run time
  await createScheduler({ urll: 'redis://127.0.0.1:6379' });
  // @ts-expect-error a function is not JSON
  await scheduler.put(() => 1);
  // @ts-expect-error a Task's data is typed: Email has no `subject`
  scheduler.work<Email>(async (task) => void task.data.subject);
}

/** A typed queue: its handlers return a `Sent` (an interface too), which result() reads back. */
interface Sent {
  messageId: string;
}

export async function typedQueue(scheduler: Scheduler, hash: string): Promise<string | undefined> {
  const email: Queue<Email, Sent> = scheduler.queue<Email, Sent>('email');
  email.work(async (task) => ({ messageId: `<${task.hash}@${task.data.to}>` }));
  // @ts-expect-error a handler whose result is not a Sent
  email.work(async () => ({ id: 1 }));
  const outcome = await email.result(hash);
  return outcome?.state === 'done' ? outcome.result?.messageId : undefined;
}
