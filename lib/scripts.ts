/**
 * The registry of docket's Lua scripts, one file per atomic operation in lua/. Each entry lists
 * the keys and arguments in the order the script's header documents them; a test checks the
 * headers against this registry, so the two cannot drift apart.
 *
 * Scripts are called by EVALSHA and fall back to EVAL on NOSCRIPT, so a Redis restart or a
 * SCRIPT FLUSH never reaches the caller.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Connection } from './connection';
import type { QueueKeys, Suffix } from './keys';

export interface ScriptSpec {
  /** KEYS, in order, as queue key suffixes. */
  readonly keys: readonly Suffix[];
  /** ARGV, in order. */
  readonly args: readonly string[];
  /** ARGV slots repeated once per item after `args` (put takes many tasks per call). */
  readonly each?: readonly string[];
}

export const SCRIPTS = {
  put: {
    keys: ['data', 'meta', 'delayed', 'ready', 'dead', 'counts', 'wake'],
    args: ['count'],
    each: ['id', 'payload', 'key', 'delay', 'at', 'priority', 'expire', 'maxAttempts'],
  },
  claim: {
    keys: ['delayed', 'ready', 'active', 'data', 'meta', 'dead', 'counts', 'wake'],
    args: ['count', 'lease', 'token', 'worker', 'deadMaxCount', 'deadMaxAge'],
  },
  ack: { keys: ['active', 'data', 'meta'], args: ['id', 'token'] },
  extend: { keys: ['active', 'meta'], args: ['id', 'token', 'by'] },
  fail: {
    keys: ['active', 'delayed', 'ready', 'meta', 'dead', 'counts', 'wake'],
    args: ['id', 'token', 'retryIn', 'error', 'maxAttempts'],
  },
  reschedule: { keys: ['delayed', 'ready', 'active', 'meta', 'dead', 'wake'], args: ['id', 'at'] },
  cancel: { keys: ['delayed', 'ready', 'active', 'data', 'meta', 'dead'], args: ['id'] },
  get: { keys: ['data', 'meta', 'delayed', 'active', 'dead'], args: ['id'] },
  stats: { keys: ['ready', 'delayed', 'active', 'dead', 'counts'], args: [] },
} as const satisfies Record<string, ScriptSpec>;

export type ScriptName = keyof typeof SCRIPTS;

/** Where the Lua files live: next to lib/ under jest, next to dist/ once installed. */
export const LUA_DIR = path.join(__dirname, '..', 'lua');

interface Loaded {
  readonly source: string;
  readonly sha: string;
}

/** Runs registered scripts over one connection. */
export class Scripts {
  private readonly loaded = new Map<ScriptName, Loaded>();

  constructor(private readonly conn: Connection) {
    for (const name of Object.keys(SCRIPTS) as ScriptName[]) {
      const source = readFileSync(path.join(LUA_DIR, `${name}.lua`), 'utf8');
      this.loaded.set(name, { source, sha: createHash('sha1').update(source).digest('hex') });
    }
  }

  /** Calls `name` with the queue's keys in registry order and `args` as ARGV. */
  async run(name: ScriptName, keys: QueueKeys, args: Array<string | number>): Promise<unknown> {
    const { source, sha } = this.loaded.get(name)!;
    const names = SCRIPTS[name].keys.map((suffix) => keys[suffix]);
    const tail = [String(names.length), ...names, ...args.map(String)];
    try {
      return await this.conn.send(names[0], ['EVALSHA', sha, ...tail]);
    } catch (err) {
      // The server lost its script cache (restart, failover, SCRIPT FLUSH): EVAL loads it again.
      const raw = (err as { cause?: unknown }).cause;
      if (!(raw instanceof Error && raw.message.startsWith('NOSCRIPT'))) throw err;
      return this.conn.send(names[0], ['EVAL', source, ...tail]);
    }
  }
}
