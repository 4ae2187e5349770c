/**
 * The Redis clients a caller may hand docket (the `client` option) and the client options it
 * takes, as types only: the options are checked against them (domain/options/) below the layer that
 * connects (lib/redis/connection.ts), so they live here, with the other public types.
 */
import type { RedisClientOptions, RedisClusterType, RedisFunctions, RedisModules, RedisScripts } from '@redis/client';

/**
 * What docket needs of a standalone client: the methods node-redis 4, 5 and 6 clients share, so
 * that a client of any of them type-checks as the `client` option. docket speaks RESP2 on it; a
 * client on RESP3 (node-redis 6's default) is duplicated onto RESP2 (connect() in lib/redis/connection.ts).
 */
export interface RedisClientLike {
  /** Sends one command as its words (`['EVALSHA', sha, ...]`): every call docket makes goes through it. */
  sendCommand<T = unknown>(args: string[]): Promise<T>;
  /** A new client with the same options: each worker's blocking connection, and a RESP2 copy of a RESP3 client. */
  duplicate(): RedisClientLike;
  /** Opens the connection (of a client docket duplicated or made). */
  connect(): Promise<unknown>;
  /** Closes the connection at once, without QUIT (of a client docket opened itself). */
  disconnect(): Promise<void>;
  /** docket listens for `'error'` on the connections it opens, so an error event never goes unhandled. */
  on(event: 'error', listener: (err: Error) => void): unknown;
  /** Whether the connection is open. */
  readonly isOpen: boolean;
}
/**
 * What docket needs of an ioredis 5 or 6 client, standalone `Redis` or `Cluster`, so that either
 * type-checks as the `client` option without docket depending on ioredis. docket duplicates it
 * and sends through the duplicate (lib/redis/ioredis.ts says why).
 */
export interface IoRedisLike {
  readonly isCluster: boolean;
  readonly status: string;
  call(command: string, args: string[]): Promise<unknown>;
  connect(): Promise<void>;
  disconnect(): void;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  once(event: string, listener: (...args: unknown[]) => void): unknown;
}
/** An ioredis `Redis` (isCluster false). */
export interface IoRedisStandalone extends IoRedisLike {
  readonly options: { host?: string; port?: number };
  duplicate(override?: object): IoRedisStandalone;
}
/** An ioredis `Cluster` (isCluster true): its slot map (`host:port` of master and replicas per slot) and node connections. */
export interface IoRedisCluster extends IoRedisLike {
  readonly options: { redisOptions?: object };
  readonly slots: string[][];
  nodes(role?: 'master'): IoRedisStandalone[];
  duplicate(startupNodes?: unknown[], override?: object): IoRedisCluster;
}
/**
 * A node-redis 4, 5 or 6 client, a node-redis 4 cluster (with any modules, functions and scripts of
 * its own), or an ioredis 5 or 6 client or cluster.
 */
export type RedisLike = RedisClientLike | Cluster | IoRedisLike;
/** A standalone client docket sends through: its own, a caller's, or a duplicate of either. */
export type Standalone = RedisClientLike;
export type Cluster = RedisClusterType<RedisModules, RedisFunctions, RedisScripts>;
/** node-redis 4's client options (TLS, username, password, database, socket timeouts ...). */
export type ClientOptions = RedisClientOptions<RedisModules, RedisFunctions, RedisScripts>;
