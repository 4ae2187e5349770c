/**
 * One state's tasks a page at a time (`GET /tasks`, `/api/tasks`), and the search over them: a
 * task whose hash is the text exactly, and tasks whose payload holds the text. Payloads are not
 * indexed, so the text search reads the list: at most SEARCH_SCAN tasks from its head, and the
 * first SEARCH_PREVIEW_BYTES of each payload, so one search costs a bounded read however long the
 * list is. The page says how much it searched.
 */
import { ENCRYPTED } from '../../domain/crypto';
import type { PreviewTask } from '../../types/lists';
import { parse, taskHash } from '../../domain/options';
import type { Scheduler } from '../../types/scheduler';
import type { TaskInfo, TaskState } from '../../types/task';
import { PREVIEW_BYTES, toView, type TaskView } from './api';
import type { ListQuery } from './options';

/** Most tasks a text search reads, from the head of the list. */
export const SEARCH_SCAN = 2000;
/** Payload bytes a text search reads per task: text further into a payload is not found. */
export const SEARCH_PREVIEW_BYTES = 4096;
/** Tasks read per list() call while searching. */
const SCAN_BATCH = 250;

/** How a search went: what was asked, and how much of the list it read. */
export interface SearchInfo {
  q: string;
  /** Whether a task of this state has the text as its hash (it is listed first). */
  byHash: boolean;
  /** Tasks of the list read for the text search (at most SEARCH_SCAN). */
  scanned: number;
  /** Of each, the payload bytes read (SEARCH_PREVIEW_BYTES). */
  previewBytes: number;
}

/** The JSON of `GET <base>/api/tasks`. */
export interface ListPage {
  /** The Redis server's clock (epoch ms) when read. */
  now: number;
  queue: string;
  state: TaskState;
  offset: number;
  limit: number;
  /** Tasks in this state in all; with a search, the matches found. */
  total: number;
  /** Tasks in this state in all, search or not. */
  inState: number;
  tasks: TaskView[];
  /** The search, when `q` was given. */
  search: SearchInfo | null;
}

/** A page of `query.state` in `queue`, or of the matches of `query.q`. */
export async function listPage(scheduler: Scheduler, queue: string, query: ListQuery): Promise<ListPage> {
  const { state, offset, limit, q } = query;
  if (q !== undefined) return search(scheduler, queue, query, q);
  const p = await scheduler.list(state, { queue, offset, limit, preview: PREVIEW_BYTES });
  return { now: p.now, queue, state, offset, limit, total: p.total, inState: p.total, tasks: p.tasks.map(toView), search: null };
}

/** The task whose hash is `q`, when `q` is a hash and that task is in `state` now. */
async function byHash(scheduler: Scheduler, queue: string, state: TaskState, q: string): Promise<TaskInfo | null> {
  try {
    parse(taskHash, q, 'q');
  } catch {
    return null; // not a hash: a text search only
  }
  const task = await scheduler.get(q, { queue });
  return task !== null && task.state === state ? task : null;
}

/** A task read by get() as a listed one: its preview made from its data, as list() cuts it. */
function fromInfo(task: TaskInfo): TaskView {
  const json = task.encrypted && task.data === null ? ENCRYPTED : (JSON.stringify(task.data) ?? 'null');
  const preview = Buffer.from(json)
    .subarray(0, PREVIEW_BYTES)
    .toString('utf8')
    .replace(/\uFFFD+$/, '');
  const progress = task.progress === null ? null : (JSON.stringify(task.progress) ?? null);
  const listed: PreviewTask = { ...task, preview, bytes: Buffer.byteLength(json), progressPreview: progress, diedAt: null, waitingOn: null };
  return toView(listed);
}

/** Whether a listed task holds `needle` (lower case) in its payload's head or its name. */
function holds(task: PreviewTask, needle: string): boolean {
  return task.preview.toLowerCase().includes(needle) || (task.name !== null && task.name.toLowerCase().includes(needle));
}

async function search(scheduler: Scheduler, queue: string, query: ListQuery, q: string): Promise<ListPage> {
  const { state, offset, limit } = query;
  const needle = q.toLowerCase();
  const exact = await byHash(scheduler, queue, state, q);
  const found: TaskView[] = exact === null ? [] : [fromInfo(exact)];
  let scanned = 0;
  let inState = 0;
  let now = 0;
  while (scanned < SEARCH_SCAN) {
    const p = await scheduler.list(state, { queue, offset: scanned, limit: Math.min(SCAN_BATCH, SEARCH_SCAN - scanned), preview: SEARCH_PREVIEW_BYTES });
    ({ now, total: inState } = p);
    for (const t of p.tasks) if (t.hash !== exact?.hash && holds(t, needle)) found.push(toView(t));
    scanned += p.tasks.length;
    if (p.tasks.length === 0 || scanned >= p.total) break;
  }
  const info: SearchInfo = { q, byHash: exact !== null, scanned, previewBytes: SEARCH_PREVIEW_BYTES };
  return { now, queue, state, offset, limit, total: found.length, inState, tasks: found.slice(offset, offset + limit), search: info };
}
