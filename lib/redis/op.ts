/**
 * What an operation is: one Lua script (lua/<name>.lua) and one TypeScript file (lib/ops/<name>.ts)
 * that says, as data, how to call it: its flags, its keys and named arguments in the order its
 * header documents them, and its codec, as node-redis keeps a command's arguments and reply in one
 * file. Scripts.run (scripts.ts) takes the op itself, so nothing else lists the scripts: adding one
 * is its two files (and its test). __tests__/scripts.test.ts checks each header against its op.
 *
 * A leaf (it imports only the key names), so that any module may import an op for its types.
 */
import { READY_LEVELS, type Suffix } from '../domain/keys';

/**
 * Script flags (Redis 7's `#!lua flags=...` first line). Which script has which is each op's
 * `flags` (a test checks each against the script's first line); this comment gives the rule, not
 * the list, so that it cannot drift from them.
 * - `''` (deny-oom): a Redis over its memory limit refuses the script before it runs, so it writes
 *   nothing. For scripts that add or move tasks, or change a schedule, such as put and reschedule.
 * - `'allow-oom'`: the script runs whatever the memory. For scripts that work or shrink a queue
 *   (claim, fail, purge, ...), so workers can still drain a full Redis, which frees memory; for
 *   those that let parked tasks go (limit, cap); and for pause, so an operator can stop a queue.
 * - `'no-writes'`: the script only reads, such as get and stats.
 */
export type ScriptFlags = '' | 'allow-oom' | 'no-writes';

/** How a script is called: what compile() names and run() passes. */
export interface ScriptSpec {
  /** lua/<name>.lua; also what errors call the script. */
  readonly name: string;
  /** The flags on the script's `#!lua` line. */
  readonly flags: ScriptFlags;
  /** KEYS, in order, as queue key suffixes. */
  readonly keys: readonly Suffix[];
  /** ARGV, in order. */
  readonly args: readonly string[];
  /** ARGV slots repeated once per item after `args` (put takes many tasks per call). */
  readonly each?: readonly string[];
  /** The script's file when it is not lua/<name>.lua (an op a test defines with a script of its own). */
  readonly file?: string;
}

/**
 * A script's input and reply as data, as node-redis describes each command (`parseCommand` +
 * `transformReply`): `encode` turns a typed input into the script's ARGV, in the order of `args`
 * then the `each` slots once per item; `decode` turns the reply its Lua header documents into a
 * typed value, and throws a ReplyError for any other shape (the readers of reply.ts). Both run
 * without a server, so each is unit-tested on its own (__tests__/codecs.test.ts).
 */
export interface Codec<I, O> {
  /** The ARGV of one call. */
  encode(input: I): Array<string | number>;
  /** The reply of that call; `input` is the call's own, for replies laid out by it (an ack's flag per ack). */
  decode(reply: unknown, input: I): O;
}

/** One operation: its script and its codec. */
export interface Op<I, O> extends ScriptSpec, Codec<I, O> {}

/** The input an op encodes. */
export type InputOf<P> = P extends Op<infer I, unknown> ? I : never;
/** The value an op decodes its reply to. */
export type OutputOf<P> = P extends Op<never, infer O> ? O : never;

/** Defines an op (the one export of lib/ops/<name>.ts), typed by its codec. */
export function script<I, O>(op: Op<I, O>): Op<I, O> {
  return Object.freeze(op);
}

/** The keys of the priority levels and the fair groups, which every script that queues or takes ready tasks needs. */
export const LEVEL_KEYS = ['levels', ...READY_LEVELS, 'grouped', 'gtags', 'parked', 'gactive', 'glimits'] as const;
/** The keys of dependencies (lua/include/deps.lua), which every script that adds or finishes tasks needs. */
export const DEPS_KEYS = ['blocked', 'after', 'dependents', 'deplist', 'settle', 'outbox'] as const;
