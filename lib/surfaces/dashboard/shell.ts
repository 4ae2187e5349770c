/**
 * What every page of the dashboard shares: the tabs of the chosen queue (the overview, one list
 * per state, schedules, workers, groups), and the frame of the pages other than the overview
 * (head, header, tabs, the page's config and script). Those pages are read once per load: their
 * buttons post as the overview's do, and the page reloads after each, so what it shows is fresh.
 */
import { STATES } from '../../features/admin';
import { printable } from '../printable';
import { CLIENT } from './client';
import type { View } from './forms';
import { html, iso, scriptJson, trusted, utc, ZONE, type Html } from './html';
import { CSS } from './style';

/** The tabs: the overview, each state's list, and the queue's schedules, workers and groups. */
export type Tab = 'overview' | (typeof STATES)[number] | 'schedules' | 'workers' | 'groups' | 'add';

/** A page of the dashboard for `queue`: `path` is '/', '/tasks', '/task', '/schedules', ... */
export function pageLink(view: View, path: string, params: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) query.set(name, String(value));
  const rest = query.toString();
  return `${view.base}${path}${rest ? `?${rest}` : ''}`;
}

/** The task page of `hash` in `queue`. */
export function taskLink(view: View, queue: string, hash: string): string {
  return pageLink(view, '/task', { queue, hash });
}

/** The tab bar of `queue`, with `tab` marked as the page shown. */
export function tabs(view: View, queue: string, tab: Tab): Html {
  const items: Array<[Tab, string, string]> = [
    ['overview', 'Overview', pageLink(view, '/', { queue })],
    ...STATES.map((s): [Tab, string, string] => [s, s[0].toUpperCase() + s.slice(1), pageLink(view, '/tasks', { queue, state: s })]),
    ['schedules', 'Schedules', pageLink(view, '/schedules', { queue })],
    ['workers', 'Workers', pageLink(view, '/workers', { queue })],
    ['groups', 'Groups', pageLink(view, '/groups', { queue })],
    ['add', '+ Add task', pageLink(view, '/add', { queue })],
  ];
  const links = items.map(([t, label, href]) => html`<a href="${href}" data-tab="${t}"${t === tab ? html` aria-current="page" class="on"` : ''}>${label}</a>`);
  return html`<nav class="tabs" aria-label="views of queue ${printable(queue)}">${links}</nav>`;
}

/** The header: the brand, and when the page was read, in the zone every time of the page is in. */
export function header(now: number | null, live: Html): Html {
  const at = now === null ? '' : html` · read at <time datetime="${iso(now)}">${utc(now)}</time>`;
  return html`<header class="top"><div class="brand">docket <span>dashboard</span></div>
<div class="zone">times in ${ZONE}${at}</div>${live}</header>`;
}

export interface ShellSpec {
  title: string;
  queue: string | null;
  tab: Tab;
  now: number | null;
  body: Html;
  nonce: string;
}

/** A page other than the overview: no live refresh, and a reload after each action. */
export function shellPage(view: View, spec: ShellSpec): string {
  const config = { api: null, csrf: view.csrf, queue: spec.queue, hash: null, interval: 0 };
  const nav = spec.queue === null ? '' : tabs(view, spec.queue, spec.tab);
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${printable(spec.title)} · docket</title><link rel="icon" href="data:,"><style nonce="${spec.nonce}">${trusted(CSS)}</style></head>
<body><div id="docket" data-now="${spec.now ?? ''}">
${header(spec.now, html`<div class="live" id="live" data-state="static"><i class="pulse"></i><span class="text">snapshot; reload for fresh data</span></div>`)}
${nav}<main>${spec.body}</main>
</div><div id="toast" role="status" aria-live="polite"></div>
<script type="application/json" id="docket-config">${scriptJson(config)}</script>
<script nonce="${spec.nonce}">${trusted(CLIENT)}</script>
</body></html>`.text;
}
