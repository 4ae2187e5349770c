/**
 * What a task looks like to callers, and how the records Lua hands back become those shapes.
 * A task's stored metadata is a small JSON object, the record part of its field in the queue's
 * `tasks` hash (docs/design.md, lib/domain/meta.ts). One concept over 300 lines: a task's shapes
 * (Task, TaskInfo, its outcomes) and how its record becomes them.
 */
import type { DoneRun, TaskInfo, TaskState } from '../types/task';
import { parseMeta, type Meta } from './meta';
import { taskKeep } from './kept';
import { unseal, type Keyring } from './crypto';
import { parseRecord } from './payload';
import type { Json } from '../types/json';

/**
 * Task `hash` as get() reports it, from its record as the get and list codecs decode it (by name:
 * lib/ops/get.ts). A record without a payload (damaged) reads as data null.
 */
export function toTaskInfo<T>(queue: string, hash: string, record: TaskRecord, keyring: Keyring | null = null): TaskInfo<T> {
  const { payload, state } = record;
  const meta = parseMeta(record.meta, `the metadata of task ${hash}`);
  const data = viewOf<T>(keyring, payload ?? 'null', `the payload of task ${hash}`);
  const progress = record.progress ? viewOf(keyring, record.progress, `the progress of task ${hash}`) : null;
  return {
    hash,
    queue,
    data: data ?? (null as T),
    state,
    runAt: meta.r,
    expireAt: meta.e ?? null,
    attempts: meta.n,
    maxAttempts: meta.m,
    priority: (meta.p ?? 0) > 0,
    level: meta.p ?? 0,
    group: meta.g ?? null,
    key: meta.k ?? null,
    lastError: meta.err ?? null,
    // A record without `en` that recorded a failure ended its attempt the usual way.
    ending: state === 'done' ? null : (meta.en ?? (meta.err === undefined ? null : 'failed')),
    // A done task's record is the one it had when acked: its lease is over.
    leaseUntil: state === 'done' ? null : (meta.l ?? null),
    worker: meta.w ?? null,
    progress: progress ?? null,
    keepResult: meta.kr ?? null,
    timeout: meta.to ?? null,
    name: meta.nm ?? null,
    schedule: meta.sc ?? null,
    ...(meta.kp ? { keep: taskKeep(meta.kp) } : {}),
    ...(state === 'done' ? { done: doneRun(meta, keyring, hash) } : {}),
    ...(data === undefined || progress === undefined ? { encrypted: true } : {}),
  };
}

function doneRun(meta: Meta, keyring: Keyring | null, hash: string): DoneRun {
  const result = meta.rs === undefined ? null : (viewOf(keyring, meta.rs, `the result of task ${hash}`) ?? null);
  return { result, putAt: meta.c, startedAt: meta.s ?? null, finishedAt: meta.f ?? 0 };
}

/**
 * A stored value (payload, progress, result) as a view shows it: parsed, or undefined when it is
 * encrypted with a key this reader does not have, which a view shows as "encrypted", not a throw.
 */
export function viewOf<T = Json>(keyring: Keyring | null, text: string, what: string): T | undefined {
  const plain = unseal(keyring, text, what, true);
  return plain === undefined ? undefined : parseRecord<T>(plain, what);
}

/** A task's stored record and the state it is in, as get and list read it. */
export interface TaskRecord {
  /** Canonical JSON payload; null when the record has none (damaged). */
  payload: string | null;
  /** JSON task metadata (lib/domain/task.ts, Meta). */
  meta: string;
  state: TaskState;
  /** JSON progress, or null when none was reported. */
  progress: string | null;
}
