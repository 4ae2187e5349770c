/**
 * The scripts a handler's notes go through, fenced by its lease as ack is: log (lines of its log)
 * and progress (its latest progress). Headers in lua/log.lua and lua/progress.lua.
 */
import { flag, type Codec } from './codec';

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
