/**
 * One scenario of one library, in a process of its own (so libraries never share a heap, a client
 * or a JIT warm-up). Prints one JSON line: the measure, plus docket's command counts.
 */
import { createClient } from 'redis';
import { LIBRARIES } from './libraries';
import { FULL, QUICK, SCENARIOS, type Bench } from './scenarios';

async function main(): Promise<void> {
  const [library, scenario, url, quick] = process.argv.slice(2);
  const stats = createClient({ url });
  await stats.connect();
  const adapter = await LIBRARIES[library]()(url, 'bench');
  const bench: Bench = {
    adapter,
    sizes: quick === 'quick' ? QUICK : FULL,
    mark: async () => void (await stats.configResetStat()),
    usedMemory: async () => Number(/used_memory:(\d+)/.exec(await stats.info('memory'))![1]),
  };
  const measure = await SCENARIOS[scenario](bench);
  // INFO commandstats counts every command since mark(), those run inside scripts included.
  const commands: Record<string, number> = {};
  for (const m of (await stats.info('commandstats')).matchAll(/cmdstat_([^:]+):calls=(\d+)/g)) commands[m[1]] = Number(m[2]);
  await adapter.close();
  await stats.quit();
  process.stdout.write(`${JSON.stringify({ ...measure, commands })}\n`);
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`${err?.stack ?? err}\n`);
  process.exit(1);
});
