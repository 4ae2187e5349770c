/**
 * A master node reached directly, for the commands about a node rather than a key (FUNCTION LIST,
 * CLIENT LIST): Connection.masters() gives the one server, or each master of a cluster.
 */
import type { Standalone } from '../types/client';
import { fromRedisError } from '../types/errors';
import { withDeadline, type Deadline } from './deadline';
import { IoStandalone } from './ioredis';

/** One master node, reached directly. */
export interface MasterNode {
  /** `host:port` (or the socket path), as the client knows it: for people, not for routing. */
  readonly address: string;
  /** Sends one command to this node; errors come back as DocketErrors, as from Connection.send. */
  send(args: string[], deadline?: Deadline): Promise<unknown>;
}

/** The node `client` is connected to, called `address`. */
export function masterNode(address: string, client: Standalone): MasterNode {
  return {
    address,
    async send(args, deadline) {
      try {
        return await (deadline ? withDeadline(client.sendCommand(args), deadline.ms, deadline.what) : client.sendCommand(args));
      } catch (err) {
        throw fromRedisError(err, deadline?.what);
      }
    },
  };
}

/** Where a standalone client connects, as its options say (node-redis keeps them under `socket`). */
export function addressOf(client: Standalone): string {
  type Where = { host?: string; port?: number; path?: string };
  const socket: Where | undefined = client instanceof IoStandalone ? client.io.options : (client as { options?: { socket?: Where } }).options?.socket;
  if (socket?.path) return socket.path;
  return `${socket?.host ?? 'localhost'}:${socket?.port ?? 6379}`;
}
