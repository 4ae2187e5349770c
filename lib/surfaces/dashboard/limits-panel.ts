/**
 * The chosen queue's limits card: what is in force (the `limits` fragment, which each refresh
 * keeps current), and the forms that set or remove the concurrency and rate limits. The forms
 * are not in the fragment, as the lookup form is not: a refresh never swaps a field someone is
 * typing in. Each is a POST with the CSRF token, as every button of the page.
 */
import { printable } from '../printable';
import type { RateLimit } from '../../types/limits';
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

/** `; 1 group with a limit of its own`, `; 3 groups with a rate of their own`, or nothing for none. */
function ownCount(n: number, what: string): string {
  if (n === 0) return '';
  return n === 1 ? `; 1 group with a ${what} of its own` : `; ${n} groups with a ${what} of their own`;
}

function groupText(l: LimitsView): string {
  const all = l.groupDefault === null ? 'no limit' : `${l.groupDefault} at once per group`;
  return `${all}${ownCount(l.ownGroupLimits, 'limit')}`;
}

function rateText(rate: RateLimit): string {
  return `${rate.max} per ${span(rate.per)}`;
}

function groupRateText(l: LimitsView): string {
  const all = l.groupRate === null ? 'no limit' : `${rateText(l.groupRate)} per group`;
  return `${all}${ownCount(l.ownGroupRates, 'rate')}`;
}

/** The groups with a rate of their own, as many as the view lists; names are other people's text. */
function ownRates(l: LimitsView): Html {
  const listed = Object.keys(l.groupRates).sort();
  const items = listed.map((g) => html`<li data-group-rate="${g}"><code>${printable(g)}</code> ${rateText(l.groupRates[g])}</li>`);
  const more = l.ownGroupRates - listed.length;
  const rest = more > 0 ? html`<li class="dim">${more} more; rateLimits() or docket limits --json lists every one</li>` : '';
  return html`<ul class="deps">${items}${rest}</ul>`;
}

/** What is in force: the `limits` fragment. */
export function limitsFragment(view: View, l: LimitsView): Html {
  const concurrency = html`${l.concurrency === null ? 'no limit' : `${l.concurrency} at once`} <span class="dim">(${l.active} active)</span>`;
  const rate = l.rate === null ? 'no limit' : rateText(l.rate);
  const held = l.heldUntil === null ? 'no' : html`claims held for ${timeTag(l.heldUntil, span(Math.max(0, l.heldUntil - view.now)))} more`;
  const own = l.ownGroupRates === 0 ? '' : row('group-rates', 'own group rates', ownRates(l));
  return html`<dl class="fields">${row('concurrency', 'concurrency', concurrency)}${row('rate', 'rate', rate)}${row('held', 'held', held)}${row('group', 'group limit', groupText(l))}${row('group-rate', 'group rate', groupRateText(l))}${own}</dl>`;
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
  return html`<h2>Limits <span class="sub">for every worker of every process; group limits and holds are set from the API or the CLI, group rates from the API</span></h2>
<div data-fragment="limits">${fragment}</div>
<div class="limit-forms"><div class="limit-form"><span class="dim">concurrency</span>${concurrencyForms(view, queue, l)}</div>
<div class="limit-form"><span class="dim">rate</span>${rateForms(view, queue, l)}</div></div>`;
}
