/**
 * How a plain command reaches Redis, and what a command is. As node-redis keeps each command in a
 * file of its own (`parseCommand` for its arguments, `transformReply` for its reply), each command
 * docket sends outside its scripts is a `command(encode, decode)`: `encode` builds the arguments,
 * `decode` reads the reply and throws a ReplyError naming the command for any other shape, so no
 * caller reads a raw reply. docket reads on RESP2 only (connection.ts duplicates a RESP3 client
 * onto RESP2), so the decoders read RESP2 shapes, save where a note says otherwise.
 */
import type { Connection, Deadline, MasterNode } from '../../redis/connection';
import type { Standalone } from '../../types/client';

/**
 * Sends a command's arguments and resolves to its raw reply: the same shape as a script's Via
 * (scripts.ts), so the idle wait's claim and its BLPOP share one way to the blocking connection.
 */
export type Via = (args: string[]) => Promise<unknown>;

/**
 * Through the scheduler's connection: routed to the node that owns `key` (on a cluster, the
 * queue's slot), within `deadline`, whose `what` names the call in errors; failures are DocketErrors.
 */
export function routed(conn: Connection, key: string, deadline: Deadline): Via {
  return (args) => conn.send(key, args, deadline);
}

/**
 * Straight to one master node (Connection.masters), for a command about the node rather than a key
 * (FUNCTION LIST, CLIENT LIST), within `deadline`; failures are DocketErrors.
 */
export function atNode(node: MasterNode, deadline: Deadline): Via {
  return (args) => node.send(args, deadline);
}

/**
 * On a connection of its own (a blocking XREAD or BLPOP, and what is pipelined with it). Raw, as
 * node-redis gives it: the caller bounds the wait and maps errors, as it knows what the wait is.
 */
export function dedicated(client: Standalone): Via {
  return (args) => client.sendCommand(args);
}

/** A command: called with a Via and its arguments; `encode` and `decode` are its two halves, for tests. */
export interface Command<A extends unknown[], R> {
  (via: Via, ...args: A): Promise<R>;
  readonly encode: (...args: A) => string[];
  readonly decode: (reply: unknown) => R;
}

/**
 * A command from its two halves. The arguments go out before the first await, so commands called
 * one after another on one connection are pipelined in that order (idle.ts relies on it).
 */
export function command<A extends unknown[], R>(encode: (...args: A) => string[], decode: (reply: unknown) => R): Command<A, R> {
  const call = (via: Via, ...args: A): Promise<R> => via(encode(...args)).then(decode);
  return Object.assign(call, { encode, decode });
}
