/**
 * The cost model: Redis calls per task, from the INFO commandstats deltas the parent took around
 * each timed part. commandstats counts the commands scripts run as well, but cannot say which
 * ones they were; we call a command "inside a script" when docket's lua/ files name it, and
 * everything else (EVALSHA, EVAL, BLPOP, CLIENT ID/UNBLOCK, ...) a top-level call: a round trip's
 * worth of work the client asked for.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { median } from './stats';

export interface CostSample {
  tasks: number;
  calls: Record<string, number>;
}

export interface Cost {
  /** EVALSHA + EVAL per task: script calls. */
  scripts: number;
  /** Top-level calls per task, with the breakdown by command. */
  topLevel: number;
  topLevelBy: Array<[string, number]>;
  /** Every command per task, script calls and the commands inside them together. */
  commands: number;
  /** The most frequent commands run inside scripts, per task. */
  inner: Array<[string, number]>;
}

/** Upper-case words quoted in lua/*.lua and lua/include/*.lua: the commands docket's scripts can run. */
function scriptVocabulary(): Set<string> {
  const words = new Set<string>();
  for (const dir of [path.join(__dirname, '..', 'lua'), path.join(__dirname, '..', 'lua', 'include')]) {
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.lua'))) {
      for (const m of readFileSync(path.join(dir, file), 'utf8').matchAll(/['"]([A-Z]+)['"]/g)) words.add(m[1].toLowerCase());
    }
  }
  return words;
}

const SCRIPT_CALLS = ['evalsha', 'eval', 'evalsha_ro', 'eval_ro', 'fcall', 'fcall_ro'];

/** Per-task medians over the samples of one library and scenario; `vocabulary` as above. */
export function costOf(samples: CostSample[], vocabulary = scriptVocabulary()): Cost | undefined {
  if (samples.length === 0) return undefined;
  const names = [...new Set(samples.flatMap((s) => Object.keys(s.calls)))];
  const per = (name: string) => median(samples.map((s) => (s.calls[name] ?? 0) / s.tasks));
  const sum = (xs: string[]) => xs.reduce((acc, c) => acc + per(c), 0);
  const top = (c: string) => SCRIPT_CALLS.includes(c);
  const topLevel = names.filter((c) => top(c) || !vocabulary.has(c.split('|')[0]));
  const inner = names.filter((c) => !topLevel.includes(c));
  const ranked = (xs: string[]) => xs.map((c): [string, number] => [c.toUpperCase().replace('|', ' '), per(c)]).sort((a, b) => b[1] - a[1]);
  return {
    scripts: sum(names.filter(top)),
    topLevel: sum(topLevel),
    topLevelBy: ranked(topLevel),
    commands: sum(names),
    inner: ranked(inner),
  };
}
