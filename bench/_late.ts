import { performance } from 'node:perf_hooks';
import { createScheduler } from '../lib';
import { startRedis } from '../__tests__/support/redis-server';
const wall = () => performance.timeOrigin + performance.now();
const q = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };
async function main() {
  const redis = await startRedis();
  const s = await createScheduler({ url: redis.url, queue: 'bench', warnings: { aof: false }, onWarning: () => {} });
  await s.keep({ queue: 'bench', done: { count: 0 } });
  const N = 1000;
  const called = new Float64Array(N), delay = new Float64Array(N), runAt = new Float64Array(N), ran = new Float64Array(N), putDone = new Float64Array(N);
  let done = 0; let resolve!: () => void; const all = new Promise<void>((r) => (resolve = r));
  const w = s.work<{ n: number }>(async (t) => { ran[t.data.n] = wall(); if (++done === N) resolve(); }, { concurrency: Number(process.env.C ?? 1) });
  await new Promise((r) => setTimeout(r, 300));
  let next = 0;
  await Promise.all(Array.from({ length: 100 }, async () => { while (next < N) { const i = next++; delay[i] = 1000 + Math.round(Math.random() * 2000); called[i] = wall(); const r = await s.put({ n: i }, { delay: delay[i] }); putDone[i] = wall(); runAt[i] = r.runAt; } }));
  await all;
  const fromCall = [...ran].map((t, i) => t - (called[i] + delay[i]));
  const anchorErr = [...runAt].map((r, i) => r - (called[i] + delay[i]));
  const wake = [...ran].map((t, i) => t - runAt[i]);
  const putLat = [...putDone].map((t, i) => t - called[i]);
  const sm: Map<string, number[]> = (globalThis as any).__s;
  const exec: number[] = [], pre: number[] = [], post: number[] = [];
  for (let i = 0; i < N; i++) { const e = sm.get(JSON.stringify({ n: i })); if (!e) continue; const ex = runAt[i] - delay[i] + Math.floor(e[0]); exec.push(ex - e[1]); pre.push(e[0]); post.push(putDone[i] - ex); }
  for (const [name, xs] of [['call->send (wt)', pre], ['send->redis exec', exec], ['exec->put resolved', post]] as const)
    console.log(name.padEnd(22), 'p50', q(xs, 0.5).toFixed(2), 'p90', q(xs, 0.9).toFixed(2), 'p99', q(xs, 0.99).toFixed(2), 'max', Math.max(...xs).toFixed(2));
  for (const [name, xs] of [['late from call', fromCall], ['runAt - (call+delay)', anchorErr], ['ran - runAt', wake], ['put latency', putLat]] as const)
    console.log(name.padEnd(22), 'p50', q(xs, 0.5).toFixed(2), 'p90', q(xs, 0.9).toFixed(2), 'p99', q(xs, 0.99).toFixed(2), 'max', Math.max(...xs).toFixed(2));
  await w.close(); await s.close(); await redis.stop();
}
main();
