/**
 * The scripts a handler's notes go through, fenced by its lease as ack is: log (lines of its log)
 * and progress (its latest progress); and logs, which reads a log back. Headers in lua/log.lua,
 * lua/progress.lua and lua/logs.lua.
 */
import { array, flag, text, type Codec } from './codec';

export interface LogInput {
  id: string;
  token: string;
  /** Most lines kept for the task. */
  maxLines: number;
  /** Most bytes kept for the task. */
  maxBytes: number;
  /** Lines, each as a JSON string. */
  lines: readonly string[];
}

/** true when stored, false when the lease is lost. */
export const log: Codec<LogInput, boolean> = {
  encode: (i) => [i.id, i.token, i.maxLines, i.maxBytes, ...i.lines],
  decode: (reply) => flag('log', reply, 'the reply'),
};

/**
 * A task's stored log as chunks, oldest first, each one or more entries '<at> <line as a JSON
 * string>\n' (lib/life/logs.ts splits and parses them).
 */
export const logs: Codec<{ id: string }, string[]> = {
  encode: (i) => [i.id],
  decode: (reply) => array('logs', reply).map((entry, i) => text('logs', entry, `entry ${i + 1}`)),
};

export interface ProgressInput {
  id: string;
  token: string;
  /** The progress, as JSON. */
  value: string;
  events: number;
}

/** true when stored, false when the lease is lost. */
export const progress: Codec<ProgressInput, boolean> = {
  encode: (i) => [i.id, i.token, i.value, i.events],
  decode: (reply) => flag('progress', reply, 'the reply'),
};
