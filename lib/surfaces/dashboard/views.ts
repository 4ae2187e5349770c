/**
 * The dashboard's pages beside the overview, each also as JSON under `/api`: one state's tasks
 * a page at a time with search (`/tasks`), one task (`/task`), the schedules, the live workers
 * and the groups of a queue. Each checks its query parameters before it reads anything (a bad one
 * is a ValidationError, so a 400 naming it); a page with no `?queue=` shows the first queue.
 */
import { parseListQuery, parseQueueParam, parseTaskQuery, type ParsedDashboardOptions } from './options';
import type { Scheduler } from '../../types/scheduler';
import type { View } from './forms';
import { html, type Html } from './html';
import { addBody, readAddPage } from './add-page';
import { groupsBody, readGroupsPage } from './groups-page';
import { listPage } from './lists';
import { listBody } from './list-page';
import { readSchedules, schedulesBody } from './schedules-page';
import { shellPage, type Tab } from './shell';
import { readTaskPage, taskBody } from './task-page';
import { readWorkersPage } from '../live';
import { workersBody } from './workers-page';

/** Each page by its path under the mount point (its JSON is the same path under `/api`, but `/task`'s, which is `/api/task-page`). */
export const VIEW_PATHS = { '/tasks': 'tasks', '/task': 'task', '/schedules': 'schedules', '/workers': 'workers', '/groups': 'groups', '/add': 'add' } as const;
export type ViewName = (typeof VIEW_PATHS)[keyof typeof VIEW_PATHS];

/** What one view read: its JSON, and how to draw it. */
interface Read {
  json: unknown;
  now: number;
  queue: string | null;
  tab: Tab;
  title: string;
  body: (view: View) => Html;
}

const NO_QUEUE: Read = {
  json: { queue: null },
  now: 0,
  queue: null,
  tab: 'overview',
  title: 'docket',
  body: () => html`<section class="card"><p class="empty">No queues yet. A queue appears here after its first put.</p></section>`,
};

/** `?queue=`, else the first queue by name; null when there is none. */
async function queueOf(scheduler: Scheduler, url: URL): Promise<string | null> {
  return parseQueueParam(url.searchParams.get('queue')) ?? (await scheduler.queues())[0] ?? null;
}

async function read(name: ViewName, scheduler: Scheduler, url: URL, options: ParsedDashboardOptions): Promise<Read> {
  if (name === 'task') {
    const { queue, hash } = parseTaskQuery(url.searchParams);
    const p = await readTaskPage(scheduler, queue, hash);
    return { json: p, now: p.lookup.now, queue, tab: p.lookup.task?.state ?? 'overview', title: `task ${hash.slice(0, 12)}`, body: (view) => taskBody(view, p) };
  }
  if (name === 'add') {
    // A task can be added to a queue nobody has put on yet: the form says 'default' then.
    const queue = parseQueueParam(url.searchParams.get('queue')) ?? (await scheduler.queues())[0] ?? 'default';
    const p = await readAddPage(scheduler, queue, url);
    return { json: p, now: await scheduler.time(), queue, tab: 'add', title: `add a task · ${queue}`, body: (view) => addBody(view, p) };
  }
  // Every parameter is checked before the first read.
  const query = name === 'tasks' ? parseListQuery(url.searchParams, options.limit) : null;
  const queue = await queueOf(scheduler, url);
  if (queue === null) return NO_QUEUE;
  if (query !== null) {
    const p = await listPage(scheduler, queue, query);
    return { json: p, now: p.now, queue, tab: p.state, title: `${p.state} · ${queue}`, body: (view) => listBody(view, p) };
  }
  if (name === 'schedules') {
    const p = await readSchedules(scheduler, queue);
    return { json: p, now: p.now, queue, tab: name, title: `schedules · ${queue}`, body: (view) => schedulesBody(view, p) };
  }
  if (name === 'workers') {
    const p = await readWorkersPage(scheduler, queue);
    return { json: p, now: p.now, queue, tab: name, title: `workers · ${queue}`, body: (view) => workersBody(view, p) };
  }
  const p = await readGroupsPage(scheduler, queue);
  return { json: p, now: p.now, queue, tab: 'groups', title: `groups · ${queue}`, body: (view) => groupsBody(view, p) };
}

/** The view as a page; `nonce` lets its style and script past the Content-Security-Policy. */
export async function viewPage(name: ViewName, scheduler: Scheduler, url: URL, options: ParsedDashboardOptions, view: View, nonce: string): Promise<string> {
  const r = await read(name, scheduler, url, options);
  const v = { ...view, now: r.now };
  return shellPage(v, { title: r.title, queue: r.queue, tab: r.tab, now: r.queue === null ? null : r.now, body: r.body(v), nonce });
}

/** The view's data as JSON. */
export async function viewJson(name: ViewName, scheduler: Scheduler, url: URL, options: ParsedDashboardOptions): Promise<unknown> {
  return (await read(name, scheduler, url, options)).json;
}
