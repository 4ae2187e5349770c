/**
 * T6 (issue 3): a full Redis (maxmemory 16mb, noeviction). Puts go on until Redis refuses one.
 * Must hold: the failing put rejects with a typed OutOfMemoryError and writes nothing (put.lua is
 * deny-oom, refused before it runs); workers still drain everything (claim, ack and fail are
 * allow-oom); puts work again afterwards; nothing is lost and the invariants hold.
 */
import { OutOfMemoryError } from '../../lib';
import { eventually } from '../support/harness';
import { checkInvariants, layout, summary } from './support/checker';
import { useLab } from './support/lab';

const CHUNK = 200;
const PAD = 'x'.repeat(1000);
const lab = useLab({ redisArgs: ['--maxmemory', '16mb', '--maxmemory-policy', 'noeviction'] });

it('refuses a put on a full Redis with a typed error, writes nothing, and still drains', async () => {
  const started = Date.now();
  const producer = await lab.scheduler();
  const k = layout(lab.prefix, lab.queue);
  let refusal: unknown;
  let chunks = 0;
  while (!refusal && chunks < 500) {
    const items = Array.from({ length: CHUNK }, (_, i) => ({ data: { label: `t6-${chunks}-${i}`, pad: PAD } }));
    let before = await lab.raw.hLen(k.tasks);
    try {
      await lab.history.track(
        items.map((it) => it.data.label),
        producer.putMany(items),
      );
      before = await lab.raw.hLen(k.tasks);
      // De-dup: the same chunk again adds nothing (on a full Redis it is refused like any put).
      const results = await producer.putMany(items);
      expect(results.every((r) => !r.added)).toBe(true);
    } catch (err) {
      refusal = err;
      // The refused call stored none of its tasks.
      expect(await lab.raw.hLen(k.tasks)).toBe(before);
    }
    chunks++;
  }
  expect(refusal).toBeInstanceOf(OutOfMemoryError);
  expect((refusal as OutOfMemoryError).code).toBe('ERR_OUT_OF_MEMORY');
  const stored = await lab.raw.hLen(k.tasks);

  await Promise.all([lab.pool.spawn({ work: { concurrency: 8, leaseMs: 5000, workMs: [0, 1] } }), lab.pool.spawn({ work: { concurrency: 8, leaseMs: 5000, workMs: [0, 1] } })]);
  // stats() is a no-writes script, so it answers on a full Redis (a MULTI snapshot would not).
  const drained = async () => {
    const st = await producer.stats();
    return st.ready + st.delayed + st.active === 0;
  };
  await eventually(drained, 60_000);
  const after = producer.put({ label: 't6-after', pad: PAD });
  await lab.history.track(
    ['t6-after'],
    after.then((r) => [r]),
  );
  expect((await after).added).toBe(true);
  await eventually(drained, 10_000);

  const violations = await checkInvariants(lab.raw, lab.prefix, lab.queue);
  const f = await lab.figures();
  console.log(summary('T6', f, { storedBeforeFull: stored, chunksPut: chunks - 1, wallMs: Date.now() - started }));
  expect(f).toMatchObject({ lost: 0, unexpected: 0, untyped: 0, dead: 0 });
  expect(f.ok).toBe(stored + 1);
  expect(violations).toEqual([]);
});
