/**
 * The dashboard as one `(req, res, next)` function: it works as a Node http server's listener,
 * as Express middleware (`app.use('/docket', handler)`) and under Fastify (`@fastify/middie`, or
 * `reply.raw`). It routes, checks the access token and the CSRF token, and answers; reading and
 * writing the scheduler is api.ts's job, drawing the page page.ts's.
 *
 * Routes, under the mount path:
 *   GET  /                   the page (`?queue=` chooses the queue shown in detail; `?hash=` looks a task up in it; `?span=24h` the chart's day)
 *   GET  /api/overview       the same data as JSON (`?queue=`, `?hash=`; `?fragments=1` adds the sections as HTML)
 *   GET  /api/task           one task by `?queue=&hash=`, or its kept outcome once finished; 404 when neither
 *   GET  /tasks              one state's tasks a page at a time (`?queue=&state=&offset=&limit=`), searched with `?q=`
 *   GET  /task               one task's page (`?queue=&hash=`): whole payload, history, actions
 *   GET  /schedules, /workers, /groups   the queue's recurring schedules, live workers, groups (`?queue=`)
 *   GET  /api/tasks, /api/task-page, /api/schedules, /api/workers, /api/groups   the same pages' data as JSON
 *   POST /api/<action>       pause, resume, purge-dead, redrive-all, clean, redrive, cancel, reschedule, limit-concurrency, limit-rate,
 *                            run-again, run-schedule, pause-schedule, resume-schedule, priority, run-now, add
 *   GET  /add                the add-a-task form (`?queue=`; `?from=<hash>` pre-fills it from that task: Duplicate)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ValidationError } from '../../types/errors';
import { parse } from '../../domain/options';
import type { Scheduler } from '../../types/scheduler';
import { ACTIONS, act, overview, type Action, type Overview } from './api';
import type { Find } from './detail';
import type { View } from './forms';
import { errorBody, HttpError, readBody, redirect, sendHtml, sendJson, toHttpError, wantsJson } from './http';
import { lookup } from './lookup';
import { dashboardOptions, parseHashParam, parseQueueParam, parseSpanParam, parseTaskQuery, type ParsedDashboardOptions } from './options';
import type { DashboardHandler, DashboardOptions } from '../../types/dashboard';
import { fragmentStrings, messagePage, renderPage, tokenForm } from './page';
import { baseHeaders, credential, crossSite, csrfValid, hostAllowed, newNonce, newSecret, policy, tokenCookie } from './security';
import { VIEW_PATHS, viewJson, viewPage, type ViewName } from './views';

/** What serveDashboard adds for its own server: the Host names it answers to (DNS rebinding). */
export interface HostCheck {
  hosts?: ReadonlySet<string>;
}

/**
 * The dashboard as a request handler. Mount it at `options.basePath` (the path it is served
 * under); requests outside that path, or to no route of its own, go to `next` when given, else
 * get a 404. It authenticates nobody without `options.token`: mount it behind your app's own
 * auth (docs/operations.md shows Express and Fastify), or give it a token. Throws a
 * ValidationError for a bad option.
 */
export function createDashboard(scheduler: Scheduler, options?: DashboardOptions): DashboardHandler {
  return dashboardHandler(scheduler, parse(dashboardOptions, options ?? {}, 'options'));
}

/** createDashboard with its options parsed already; serveDashboard adds the Host check. */
export function dashboardHandler(scheduler: Scheduler, options: ParsedDashboardOptions, check: HostCheck = {}): DashboardHandler {
  if (typeof scheduler !== 'object' || scheduler === null || typeof scheduler.stats !== 'function') {
    throw new ValidationError('scheduler', 'expected a scheduler from createScheduler()');
  }
  // Per handler: a page served by an earlier process (or handler) cannot post to this one.
  const csrf = newSecret();
  const setup = { scheduler, options, check, csrf };
  return (req, res, next) => {
    const url = requestUrl(req);
    const where = url === null ? null : route(req, url, options.basePath);
    const target = where === null ? null : targetOf(where.path);
    // Not one of ours: left untouched (no headers set) for the app around the dashboard.
    if (target === null && next) return next();
    const api = where !== null && where.path.startsWith('/api/');
    baseHeaders(res);
    const done = url === null || where === null || target === null ? Promise.reject(new HttpError(404, 'ERR_NOT_FOUND', 'no such page')) : handle(setup, req, res, url, where, target);
    done.catch((err: unknown) => {
      if (res.headersSent) return void res.destroy();
      fail(req, res, toHttpError(err), api, where);
    });
  };
}

/**
 * The request's URL, or null for a target no URL parser takes: `GET //?a` reads as a URL with an
 * empty host, and a throw here would escape the server's listener and end the process.
 */
function requestUrl(req: IncomingMessage): URL | null {
  try {
    return new URL(req.url ?? '/', 'http://dashboard.invalid');
  } catch {
    return null;
  }
}

/**
 * What a path under the mount point is: the page, a read of the API, one of the other pages or
 * its JSON (views.ts), an action, or none of ours.
 */
type Target = 'page' | 'overview' | 'task' | Action | { view: ViewName; json: boolean };

/** The JSON of each view by its path: `/api/task` is taken by the lookup, so the task page's is `/api/task-page`. */
const VIEW_APIS: Record<string, ViewName> = {
  '/api/tasks': 'tasks',
  '/api/task-page': 'task',
  '/api/schedules': 'schedules',
  '/api/workers': 'workers',
  '/api/groups': 'groups',
  '/api/add-page': 'add',
};

function targetOf(path: string): Target | null {
  if (path === '/') return 'page';
  if (path === '/api/overview') return 'overview';
  if (path === '/api/task') return 'task';
  if (Object.hasOwn(VIEW_PATHS, path)) return { view: VIEW_PATHS[path as keyof typeof VIEW_PATHS], json: false };
  if (Object.hasOwn(VIEW_APIS, path)) return { view: VIEW_APIS[path], json: true };
  const action = /^\/api\/([a-z-]+)$/.exec(path)?.[1];
  return action !== undefined && (ACTIONS as readonly string[]).includes(action) ? (action as Action) : null;
}

interface Setup {
  scheduler: Scheduler;
  options: ParsedDashboardOptions;
  check: HostCheck;
  csrf: string;
}

const MOUNT = /^(\/[A-Za-z0-9._~-]+)*$/;

type Where = { path: string; base: string } | null;

/**
 * The path below the mount point, and the mount point links use; null when the request is not
 * under it. Express and @fastify/middie strip the mount path from req.url and keep the full one
 * in req.originalUrl: then, without a basePath, the part they stripped is the base.
 */
function route(req: IncomingMessage, url: URL, base: string): Where {
  const original = (req as { originalUrl?: unknown }).originalUrl;
  if (typeof original === 'string' && original !== req.url) {
    const full = original.split('?')[0];
    const mount = full.endsWith(url.pathname) ? full.slice(0, full.length - url.pathname.length) : url.pathname === '/' ? full : '';
    return { path: url.pathname, base: base || (MOUNT.test(mount) ? mount : '') };
  }
  if (base === '') return { path: url.pathname, base };
  if (url.pathname === base) return { path: '/', base };
  return url.pathname.startsWith(`${base}/`) ? { path: url.pathname.slice(base.length), base } : null;
}

async function handle(setup: Setup, req: IncomingMessage, res: ServerResponse, url: URL, where: NonNullable<Where>, target: Target): Promise<void> {
  if (setup.check.hosts && !hostAllowed(req, setup.check.hosts)) throw new HttpError(403, 'ERR_HOST', 'unexpected Host header');
  const { token } = setup.options;
  if (token !== undefined) {
    const via = credential(req, url.searchParams, token);
    if (via === null) throw new HttpError(401, 'ERR_UNAUTHORIZED', 'this dashboard needs its access token (Authorization: Bearer, or the ?token= link)');
    if (via === 'query') {
      res.setHeader('Set-Cookie', tokenCookie(req, token, where.base));
      // The token leaves the address bar (and history): the cookie carries it from now on.
      const page = target === 'page' || (typeof target === 'object' && !target.json);
      if (page && (req.method === 'GET' || req.method === 'HEAD')) return redirect(res, withoutToken(where.base + where.path, url));
    }
  }
  const view = { base: where.base, csrf: setup.csrf, now: 0 };
  if (typeof target === 'object') {
    allow(req, res, ['GET', 'HEAD']);
    return target.json ? sendJson(res, 200, await viewJson(target.view, setup.scheduler, url, setup.options)) : viewHtml(setup, res, url, view, target.view);
  }
  if (target === 'page' || target === 'overview' || target === 'task') {
    allow(req, res, ['GET', 'HEAD']);
    if (target === 'task') return taskJson(setup, res, url);
    return target === 'page' ? page(setup, res, url, view) : overviewJson(setup, res, url, view);
  }
  allow(req, res, ['POST']);
  return write(setup, req, res, target, view);
}

/** `path` (the mount point and the page's own path) with the query it came with, less the token. */
function withoutToken(path: string, url: URL): string {
  const query = new URLSearchParams(url.searchParams);
  query.delete('token');
  const rest = query.toString();
  return `${path.endsWith('/') ? path : path === '' ? '/' : path}${rest ? `?${rest}` : ''}`;
}

async function viewHtml(setup: Setup, res: ServerResponse, url: URL, view: View, name: ViewName): Promise<void> {
  const nonce = newNonce();
  const body = await viewPage(name, setup.scheduler, url, setup.options, view, nonce);
  res.setHeader('Content-Security-Policy', policy(nonce));
  sendHtml(res, 200, body);
}

/** GET never writes and POST only writes: any other method on a route is refused. */
function allow(req: IncomingMessage, res: ServerResponse, methods: string[]): void {
  if (methods.includes(req.method ?? 'GET')) return;
  res.setHeader('Allow', methods.join(', '));
  throw new HttpError(405, 'ERR_METHOD', `use ${methods.join(' or ')}`);
}

/**
 * What the page and the overview show: the overview, and with `?hash=` the task looked up in the
 * queue shown. Both inputs are checked before anything is read.
 */
async function read(setup: Setup, url: URL): Promise<{ o: Overview; find?: Find }> {
  const queue = parseQueueParam(url.searchParams.get('queue'));
  const hash = parseHashParam(url.searchParams.get('hash'));
  const span = parseSpanParam(url.searchParams.get('span'));
  const o = await overview(setup.scheduler, queue, setup.options.limit, span);
  if (hash === undefined || o.selected === null) return { o };
  return { o, find: { hash, found: await lookup(setup.scheduler, o.selected.name, hash) } };
}

async function page(setup: Setup, res: ServerResponse, url: URL, view: View): Promise<void> {
  const { o, find } = await read(setup, url);
  const nonce = newNonce();
  res.setHeader('Content-Security-Policy', policy(nonce));
  sendHtml(res, 200, renderPage({ ...view, now: o.now ?? Date.now() }, o, nonce, find));
}

async function overviewJson(setup: Setup, res: ServerResponse, url: URL, view: View): Promise<void> {
  const { o, find } = await read(setup, url);
  const body = find === undefined ? o : { ...o, lookup: find.found };
  const withFragments = url.searchParams.get('fragments') === '1';
  sendJson(res, 200, withFragments ? { ...body, fragments: fragmentStrings({ ...view, now: o.now ?? Date.now() }, o, find) } : body);
}

/** One task, or its kept outcome: a 404 when docket knows neither (never put, or not kept, or past its span). */
async function taskJson(setup: Setup, res: ServerResponse, url: URL): Promise<void> {
  const { queue, hash } = parseTaskQuery(url.searchParams);
  const found = await lookup(setup.scheduler, queue, hash);
  if (found.task === null && found.outcome === null) throw new HttpError(404, 'ERR_NOT_FOUND', `no task ${hash} in queue ${queue}, and no kept outcome`, 'hash');
  sendJson(res, 200, found);
}

/** Checks run in this order, and each refusal comes before anything is written. */
async function write(setup: Setup, req: IncomingMessage, res: ServerResponse, action: Action, view: View): Promise<void> {
  const refusal = crossSite(req);
  if (refusal !== null) throw new HttpError(403, 'ERR_CROSS_SITE', refusal);
  const body = await readBody(req);
  if (!csrfValid(req, body, setup.csrf)) throw new HttpError(403, 'ERR_CSRF', 'missing or wrong CSRF token: reload the dashboard and try again');
  const result = await act(setup.scheduler, action, body);
  if (wantsJson(req)) return sendJson(res, 200, result);
  // A plain form post (script off): back to the page, where the change shows.
  redirect(res, `${view.base}/?queue=${encodeURIComponent(result.queue)}`);
}

/**
 * API callers and the page's script get JSON; a person (the page, a plain form post) gets a page.
 * A person refused for want of the token gets a field to give it in: it goes as `?token=` to the
 * page asked for, which turns it into the cookie and leaves the address clean.
 */
function fail(req: IncomingMessage, res: ServerResponse, err: HttpError, api: boolean, where: Where): void {
  if (err.status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="docket"');
  if (api && (req.method !== 'POST' || wantsJson(req))) return sendJson(res, err.status, errorBody(err));
  const nonce = newNonce();
  res.setHeader('Content-Security-Policy', policy(nonce));
  const back = err.status === 401 ? null : api ? '../..' : '../../dashboard';
  const form =
    err.status === 401 && where !== null
      ? tokenForm(api ? `${where.base}/` : where.base + where.path, api ? new URLSearchParams() : (requestUrl(req)?.searchParams ?? new URLSearchParams()))
      : undefined;
  sendHtml(res, err.status, messagePage(err.status, heading(err), err.message, nonce, back, form));
}

function heading(err: HttpError): string {
  if (err.status === 401) return 'This dashboard needs its access token';
  if (err.status === 503) return 'Redis is not answering';
  if (err.status === 404) return 'Not found';
  return `Request refused (${err.status})`;
}
