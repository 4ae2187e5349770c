/**
 * The chosen queue's limits card: what is in force (the `limits` fragment, which each refresh
 * keeps current), and the forms that set or remove the concurrency and rate limits. The forms
 * are not in the fragment, as the lookup form is not: a refresh never swaps a field someone is
 * typing in. Each is a POST with the CSRF token, as every button of the page.
 */
import { actionForm, type View } from './forms';
import { html, span, timeTag, type Html } from './html';
import type { LimitsView } from './limits';

/** The windows the rate form offers; a window set elsewhere (the API, the CLI) is offered too. */
const WINDOWS: Array<[number, string]> = [
  [1000, 'second'],
  [60_000, 'minute'],
  [3_600_000, 'hour'],
  [86_400_000, 'day'],
];

function row(name: string, label: string, value: Html | string): Html {
  return html`<dt>${label}</dt><dd data-limit="${name}">${value}</dd>`;
}

function groupText(l: LimitsView): string {
  const all = l.groupDefault === null ? 'no limit' : `${l.groupDefault} at once per group`;
  return l.ownGroupLimits === 0 ? all : `${all}; ${l.ownGroupLimits} group${l.ownGroupLimits === 1 ? '' : 's'} with a limit of its own`;
}

/** What is in force: the `limits` fragment. */
export function limitsFragment(view: View, l: LimitsView): Html {
  const concurrency = html`${l.concurrency === null ? 'no limit' : `${l.concurrency} at once`} <span class="dim">(${l.active} active)</span>`;
  const rate = l.rate === null ? 'no limit' : `${l.rate.max} per ${span(l.rate.per)}`;
  const held = l.heldUntil === null ? 'no' : html`claims held for ${timeTag(l.heldUntil, span(Math.max(0, l.heldUntil - view.now)))} more`;
  return html`<dl class="fields">${row('concurrency', 'concurrency', concurrency)}${row('rate', 'rate', rate)}${row('held', 'held', held)}${row('group', 'group limit', groupText(l))}</dl>`;
}

function concurrencyForms(view: View, queue: string, l: LimitsView): Html {
  const input = html`<label>at most <input type="number" name="limit" min="1" max="100000" step="1" required value="${l.concurrency ?? ''}"> at once</label>`;
  const off = html`<input type="hidden" name="limit" value="off">`;
  return html`${actionForm(view, { action: 'limit-concurrency', queue, label: 'Set', kind: 'plain', controls: input })}${actionForm(view, {
    action: 'limit-concurrency',
    queue,
    label: 'Remove',
    kind: 'danger',
    controls: off,
  })}`;
}

function rateForms(view: View, queue: string, l: LimitsView): Html {
  const per = l.rate?.per ?? 60_000;
  const windows = WINDOWS.some(([ms]) => ms === per) ? WINDOWS : [...WINDOWS, [per, span(per)] as [number, string]];
  const options = windows.map(([ms, label]) => html`<option value="${ms}"${ms === per ? html` selected` : ''}>${label}</option>`);
  const controls = html`<label>at most <input type="number" name="max" min="1" max="1000000" step="1" required value="${l.rate?.max ?? ''}"></label>
<label>per <select name="per" aria-label="rate window">${options}</select></label>`;
  const off = html`<input type="hidden" name="max" value="off">`;
  return html`${actionForm(view, { action: 'limit-rate', queue, label: 'Set', kind: 'plain', controls })}${actionForm(view, {
    action: 'limit-rate',
    queue,
    label: 'Remove',
    kind: 'danger',
    controls: off,
  })}`;
}

/** The card: the fragment, then the forms. `fragment` is the limitsFragment the page rendered. */
export function limitsSection(view: View, queue: string, l: LimitsView, fragment: Html): Html {
  return html`<h2>Limits <span class="sub">for every worker of every process; group limits and holds are set from the API or the CLI</span></h2>
<div data-fragment="limits">${fragment}</div>
<div class="limit-forms"><div class="limit-form"><span class="dim">concurrency</span>${concurrencyForms(view, queue, l)}</div>
<div class="limit-form"><span class="dim">rate</span>${rateForms(view, queue, l)}</div></div>`;
}
