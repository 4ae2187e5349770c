/**
 * The whole page: the server renders every section for the first paint, so it is useful with
 * script off, and the same section renderers answer the client's refreshes (`fragments`).
 */
import { printable } from '../printable';
import type { Overview } from './api';
import { chartSection } from './chart';
import { CLIENT } from './client';
import { findSection, foundFragment, type Find } from './detail';
import type { View } from './forms';
import { html, iso, scriptJson, trusted, utc, type Html } from './html';
import { limitsFragment, limitsSection } from './limits-panel';
import { activeSection, deadSection, queuesSection, readySection, summarySection, waitingSection } from './sections';
import { header, tabs } from './shell';
import { CSS } from './style';
import { timelineSection } from './timeline';

/** How often the client asks for fresh data, in ms. */
export const REFRESH_MS = 2000;

export type FragmentName = 'queues' | 'summary' | 'limits' | 'chart' | 'ready' | 'timeline' | 'waiting' | 'active' | 'dead' | 'task';

/**
 * Each section of the page as HTML, by the name of its container (`data-fragment`); `task` is
 * what a lookup (`?hash=`) found, so a looked-up task's progress stays current.
 */
export function fragments(view: View, o: Overview, find?: Find): Partial<Record<FragmentName, Html>> {
  const queues = queuesSection(view, o);
  const s = o.selected;
  if (s === null) return { queues };
  return {
    queues,
    summary: summarySection(view, s),
    limits: limitsFragment(view, s.limits),
    chart: chartSection(s.throughput, view, s.name, s.span),
    ready: readySection(view, s.name, s.ready),
    timeline: timelineSection(view, s.name, s.delayed),
    waiting: waitingSection(view, s.name, s.waiting),
    active: activeSection(view, s.name, s.active),
    dead: deadSection(view, s.name, s.dead),
    ...(find === undefined ? {} : { task: foundFragment(view, find) }),
  };
}

/** The fragments as strings, for the overview API's JSON. */
export function fragmentStrings(view: View, o: Overview, find?: Find): Record<string, string> {
  return Object.fromEntries(Object.entries(fragments(view, o, find)).map(([name, h]) => [name, h.text]));
}

function section(name: FragmentName, part: Html | undefined, kind = 'card'): Html {
  return part === undefined ? html`` : html`<section class="${kind}" data-fragment="${name}">${part}</section>`;
}

/** The full page. `nonce` lets its one style and one script past the Content-Security-Policy. */
export function renderPage(view: View, o: Overview, nonce: string, find?: Find): string {
  const f = fragments(view, o, find);
  const config = { api: `${view.base}/api/overview`, csrf: view.csrf, queue: o.selected?.name ?? null, hash: find?.hash ?? null, span: o.selected?.span ?? '10m', interval: REFRESH_MS };
  // The lookup form is not a fragment: a refresh never swaps it while someone types in it.
  const lookup = o.selected === null ? html`` : html`<section class="card">${findSection(view, o.selected.name, find)}</section>`;
  // Nor are the limits forms: only what is in force (the `limits` fragment) is swapped.
  const limits = o.selected === null || f.limits === undefined ? html`` : html`<section class="card">${limitsSection(view, o.selected.name, o.selected.limits, f.limits)}</section>`;
  const title = o.selected ? `${printable(o.selected.name)} · docket` : 'docket';
  // The live refresh says when it last read; without script, this says when the page was read.
  const at = o.now === null ? '' : html` at <time datetime="${iso(o.now)}">${utc(o.now)}</time>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title><link rel="icon" href="data:,"><style nonce="${nonce}">${trusted(CSS)}</style></head>
<body><div id="docket" data-now="${o.now ?? ''}">
${header(null, html`<div class="live" id="live" data-state="static"><i class="pulse"></i><span class="text">snapshot${at}; reload for fresh data</span></div>`)}
${o.selected === null ? '' : tabs(view, o.selected.name, 'overview')}
<main>${section('queues', f.queues)}${section('summary', f.summary, 'plain')}${limits}${lookup}${section('chart', f.chart)}${section('ready', f.ready)}${section('timeline', f.timeline)}${section('waiting', f.waiting)}${section('active', f.active)}${section('dead', f.dead)}</main>
</div><div id="toast" role="status" aria-live="polite"></div>
<script type="application/json" id="docket-config">${scriptJson(config)}</script>
<script nonce="${nonce}">${trusted(CLIENT)}</script>
</body></html>`.text;
}

/**
 * A short page for refusals (401) and failures, so a person sees why and what to do. `back` is
 * a link relative to the failed URL (`../` from an action), so it works under any mount path.
 */
export function messagePage(status: number, heading: string, detail: string, nonce: string, back: string | null, form?: Html): string {
  const link = back === null ? '' : html`<p><a href="${back}">Back to the dashboard</a></p>`;
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${status} · docket</title><link rel="icon" href="data:,">
<style nonce="${nonce}">${trusted(CSS)}</style></head><body><header class="top"><div class="brand">docket <span>dashboard</span></div></header>
<main><section class="card"><h1>${heading}</h1><p>${printable(detail)}</p>${form ?? ''}${link}</section></main></body></html>`.text;
}

/**
 * The 401 page's field for the access token: a GET to the page asked for (`action`), with the
 * query it had, so the token arrives as `?token=`, which the handler swaps for its cookie and a
 * clean address at once. A password field, so it is not shown or kept by the browser's autofill.
 */
export function tokenForm(action: string, query: URLSearchParams): Html {
  const kept = [...query].filter(([name]) => name !== 'token').map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  return html`<form class="find token" method="get" action="${action}">${kept}<label class="grow">access token <input type="password" name="token" required minlength="16" maxlength="512" autocomplete="off" spellcheck="false" autofocus></label>
<button type="submit" class="btn primary">Open the dashboard</button></form>`;
}
