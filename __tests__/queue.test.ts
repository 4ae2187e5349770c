/**
 * Typed queues (`scheduler.queue<T>(name)`, and `queue<T, R>` with a result type): the handle puts
 * into, works, reads and follows its own queue only, refuses another queue in options before any
 * I/O, and leaves the payload to put's own JSON check. What must and must not compile is in payload-types.test.ts.
 */
import path from 'node:path';
import { ClosedError, PayloadTooLargeError, ValidationError, type Queue, type QueueEvent, type Task } from '../lib';
import { keysUnder, useRedis } from './support/harness';

const redis = useRedis();

/** A payload declared as an interface: no index signature, so it is not assignable to Json. */
interface Mail {
  to: string;
  subject: string;
  cc?: string[];
}

describe('a typed queue', () => {
  it('puts into its own queue, and its worker gets the data as put', async () => {
    const s = await redis.scheduler();
    const mail = s.queue<Mail>('email');
    expect(mail.name).toBe('email');
    const put = await mail.put({ to: 'ada@example.com', subject: 'hi' }, { keepResult: 60_000 });
    expect(put).toMatchObject({ added: true, queue: 'email' });
    expect(await s.stats({ queue: 'email' })).toMatchObject({ ready: 1 });
    expect(await s.stats()).toMatchObject({ ready: 0 });

    const seen: Mail[] = [];
    const worker = mail.work(async (task: Task<Mail>) => {
      seen.push(task.data);
      return { sent: task.data.to };
    });
    const outcome = await mail.result(put.hash, { wait: 5000 });
    await worker.close();
    expect(seen).toEqual([{ to: 'ada@example.com', subject: 'hi' }]);
    expect(outcome).toMatchObject({ state: 'done', result: { sent: 'ada@example.com' } });
  });

  it("keeps its handler's typed result (queue<T, R>), an interface included, and reads it back", async () => {
    interface Sent {
      to: string;
      subjects: string[];
    }
    const s = await redis.scheduler();
    const mail = s.queue<Mail, Sent>('email');
    const put = await mail.put({ to: 'ada@example.com', subject: 'hi' }, { keepResult: 60_000 });
    const worker = mail.work(async (task) => {
      const sent: Sent = { to: task.data.to, subjects: [task.data.subject] };
      return sent;
    });
    const outcome = await mail.result(put.hash, { wait: 5000 });
    await worker.close();
    expect(outcome).toMatchObject({ state: 'done', result: { to: 'ada@example.com', subjects: ['hi'] } });
    // The type says so too: a done outcome's result is a Sent.
    const subjects: string[] | undefined = outcome?.state === 'done' ? outcome.result?.subjects : undefined;
    expect(subjects).toEqual(['hi']);
  });

  it('runs a handler module in threads on its own queue (sandbox)', async () => {
    const s = await redis.scheduler();
    const mail = s.queue<Mail>('email');
    const worker = mail.work(path.join(__dirname, 'support', 'sandbox', 'handlers.js'), { sandbox: true });
    const { hash } = await mail.put({ to: 'a@x', subject: 'x' }, { name: 'echo', keepResult: 60_000 });
    const outcome = await mail.result(hash, { wait: 15_000 });
    await worker.close();
    expect(outcome).toMatchObject({ state: 'done', result: { data: { to: 'a@x', subject: 'x' }, queue: 'email' } });
  });

  it('puts many into its own queue, and reads them back with get', async () => {
    const s = await redis.scheduler();
    const mail = s.queue<Mail>('email');
    const results = await mail.putMany([{ data: { to: 'a@x', subject: '1' } }, { data: { to: 'b@x', subject: '2', cc: ['c@x'] }, options: { priority: 3 } }]);
    expect(results.map((r) => [r.added, r.queue])).toEqual([
      [true, 'email'],
      [true, 'email'],
    ]);
    const info = await mail.get(results[1].hash);
    expect(info).toMatchObject({ queue: 'email', level: 3, data: { to: 'b@x', subject: '2', cc: ['c@x'] } });
    // The same hash in the default queue is another task: the handle read its own queue.
    expect(await s.get(results[1].hash)).toBeNull();
    expect(await mail.putMany([])).toEqual([]);
  });

  it('follows the events of its own queue only', async () => {
    const s = await redis.scheduler();
    const mail = s.queue<Mail>('email');
    const events = mail.events();
    await s.put({ elsewhere: true }); // the default queue: not seen
    const { hash } = await mail.put({ to: 'a@x', subject: 'x' });
    const task = (await s.claim<Mail>({ queue: 'email' }))!;
    await s.ack(task);
    const next = (await events.next()).value as QueueEvent;
    await events.return!();
    expect(next).toMatchObject({ type: 'completed', queue: 'email', hash });
  });

  it('takes its own queue given again in options', async () => {
    const s = await redis.scheduler();
    const mail = s.queue<Mail>('email');
    const put = await mail.put({ to: 'a@x', subject: 'x' }, { queue: 'email' });
    expect(put.queue).toBe('email');
    expect(await mail.get(put.hash, { queue: 'email' })).toMatchObject({ state: 'ready' });
    const [many] = await mail.putMany([{ data: { to: 'b@x', subject: 'y' }, options: { queue: 'email' } }]);
    expect(many.queue).toBe('email');
  });

  it('refuses another queue in options, naming the field, before writing anything', async () => {
    const s = await redis.scheduler();
    const raw = await redis.raw();
    const mail: Queue<Mail> = s.queue<Mail>('email');
    const data = { to: 'a@x', subject: 'x' };
    const refused = (field: string) => expect.objectContaining({ name: 'ValidationError', field, message: expect.stringMatching(/"sms".*"email"/) });

    await expect(mail.put(data, { queue: 'sms' })).rejects.toEqual(refused('options.queue'));
    await expect(mail.putMany([{ data }, { data, options: { queue: 'sms' } }])).rejects.toEqual(refused('items[1].options.queue'));
    await expect(mail.get('0123', { queue: 'sms' })).rejects.toEqual(refused('options.queue'));
    await expect(mail.result('0123', { queue: 'sms' })).rejects.toEqual(refused('options.queue'));
    expect(() => mail.work(async () => {}, { queue: 'sms' })).toThrow(ValidationError);
    expect(() => mail.work(async () => {}, { queue: 'sms' })).toThrow(/^options\.queue: /);
    expect(() => mail.events({ queue: 'sms' })).toThrow(/^options\.queue: /);
    await expect(mail.put(data, { queue: 7 } as never)).rejects.toEqual(expect.objectContaining({ field: 'options.queue', message: expect.stringMatching(/of type number/) }));
    await expect(mail.put(data, 'email' as never)).rejects.toEqual(expect.objectContaining({ field: 'options' }));
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });

  it('refuses options whose queue cannot be read as a ValidationError', async () => {
    const s = await redis.scheduler();
    const mail = s.queue<Mail>('email');
    const options = {
      get queue(): string {
        throw new Error('boom');
      },
    };
    await expect(mail.put({ to: 'a@x', subject: 'x' }, options)).rejects.toEqual(
      expect.objectContaining({ name: 'ValidationError', field: 'options', message: expect.stringMatching(/boom/) }),
    );
  });

  it('leaves the payload to put: data that is not JSON is refused with the usual errors', async () => {
    const s = await redis.scheduler({ maxPayloadBytes: 1024 });
    const raw = await redis.raw();
    const mail = s.queue<Mail>('email');
    // What a cast, or a caller without types, can still hand it.
    const withFunction = { to: 'a@x', subject: 'x', send: () => {} } as unknown as Mail;
    await expect(mail.put(withFunction)).rejects.toEqual(expect.objectContaining({ name: 'ValidationError', field: 'data.send' }));
    await expect(mail.putMany([{ data: { to: 'a@x', subject: undefined } as unknown as Mail }])).rejects.toEqual(
      expect.objectContaining({ name: 'ValidationError', field: 'items[0].data.subject' }),
    );
    await expect(mail.put({ to: 'a@x', subject: 'x'.repeat(2000) })).rejects.toBeInstanceOf(PayloadTooLargeError);
    expect(await keysUnder(raw, s.prefix)).toEqual([]);
  });

  it('checks the name, and is refused once the scheduler is closed', async () => {
    const s = await redis.scheduler();
    expect(() => s.queue('')).toThrow(ValidationError);
    expect(() => s.queue('a b')).toThrow(/^name: /);
    const mail = s.queue<Mail>('email');
    await s.close();
    expect(() => s.queue<Mail>('email')).toThrow(ClosedError);
    await expect(mail.put({ to: 'a@x', subject: 'x' })).rejects.toBeInstanceOf(ClosedError);
    expect(() => mail.work(async () => {})).toThrow(ClosedError);
  });
});

describe('put with a payload typed by an interface', () => {
  it('stores it as any JSON payload, and de-duplicates it with the same data typed otherwise', async () => {
    const s = await redis.scheduler();
    const message: Mail = { to: 'a@x', subject: 'x' };
    const first = await s.put(message);
    const [second] = await s.putMany([{ data: message }]);
    expect(first.added).toBe(true);
    expect(second).toMatchObject({ hash: first.hash, added: false });
    expect((await s.put({ subject: 'x', to: 'a@x' })).hash).toBe(first.hash);
    expect((await s.get<Mail>(first.hash))?.data).toEqual(message);
  });
});
