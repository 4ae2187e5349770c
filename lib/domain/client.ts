/**
 * The Redis clients a caller may hand docket (the `client` option) and the client options it
 * takes, as types only: the options are checked against them (domain/options/) below the layer that
 * connects (lib/redis/connection.ts), so they live here, with the other words of the domain.
 */
import type { RedisClientOptions, RedisClusterType, RedisFunctions, RedisModules, RedisScripts } from '@redis/client';

/**
 * What docket needs of a standalone client: the methods node-redis 4, 5 and 6 clients share, so
 * that a client of any of them type-checks as the `client` option. docket speaks RESP2 on it; a
 * client on RESP3 (node-redis 6's default) is duplicated onto RESP2 (connect() in lib/redis/connection.ts).
 */
export interface RedisClientLike {
  sendCommand<T = unknown>(args: string[]): Promise<T>;
  duplicate(): RedisClientLike;
  connect(): Promise<unknown>;
  disconnect(): Promise<void>;
  on(event: 'error', listener: (err: Error) => void): unknown;
  readonly isOpen: boolean;
}
/** A node-redis 4, 5 or 6 client, or a node-redis 4 cluster, with any modules, functions and scripts of its own. */
export type RedisLike = RedisClientLike | Cluster;
/** A standalone client docket sends through: its own, a caller's, or a duplicate of either. */
export type Standalone = RedisClientLike;
export type Cluster = RedisClusterType<RedisModules, RedisFunctions, RedisScripts>;
/** node-redis 4's client options (TLS, username, password, database, socket timeouts ...). */
export type ClientOptions = RedisClientOptions<RedisModules, RedisFunctions, RedisScripts>;
