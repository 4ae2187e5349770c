/**
 * Every script's codec, by script name: scripts.ts types `run()` by them and checks that each
 * registered script has exactly one. This module and the ones it imports stay leaves (errors,
 * key names, types): scripts.ts imports them, so none of them may import anything that does.
 */
import type { Codec } from './codec';
import { apply, outbox } from './deps';
import { cap, limit } from './flow';
import { beat, claim, extend, fail, release } from './lease';
import { clean, obliterate } from './maintenance';
import { log, logs, progress } from './notes';
import { put } from './put';
import { access, get, list, result, stats } from './reads';
import { cancel, migrate, pause, priority, purge, redrive, reschedule, unschedule } from './changes';

export const CODECS = {
  put,
  claim,
  extend,
  fail,
  release,
  beat,
  reschedule,
  priority,
  cancel,
  apply,
  outbox,
  get,
  result,
  progress,
  log,
  logs,
  list,
  redrive,
  purge,
  stats,
  unschedule,
  pause,
  access,
  cap,
  limit,
  clean,
  obliterate,
  migrate,
} as const satisfies Record<string, Codec<never, unknown>>;

/** The input a script's codec encodes. */
export type InputOf<N extends keyof typeof CODECS> = Parameters<(typeof CODECS)[N]['encode']>[0];
/** The value a script's codec decodes its reply to. */
export type OutputOf<N extends keyof typeof CODECS> = ReturnType<(typeof CODECS)[N]['decode']>;

export type { Codec } from './codec';
