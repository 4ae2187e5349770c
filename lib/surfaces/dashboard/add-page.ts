/**
 * The add-a-task page (`GET /add?queue=`, its JSON at `/api/add-page`): a form for a new task
 * (queue, name, JSON data, delay, priority, group, most attempts) that posts to `/api/add`. With
 * `?from=<hash>` it is Duplicate: the form comes pre-filled with that task's data and options, and
 * a send puts a new task like it (put()'s de-dup rules apply: the answer says added or duplicate).
 * The page's script checks the data is JSON before it sends it; the server checks it again.
 */
import { ENCRYPTED } from '../../domain/crypto';
import { printable } from '../printable';
import type { Scheduler } from '../../types/scheduler';
import type { View } from './forms';
import { html, type Html } from './html';
import { parseHashParam } from './options';
import { MAX_DATA_CHARS } from './task-actions';

/** What the form starts with. */
export interface AddPrefill {
  data: string;
  name: string;
  priority: number;
  group: string;
  maxAttempts: string;
}

/** The JSON of `GET <base>/api/add-page`. */
export interface AddPage {
  queue: string;
  /** The task duplicated (`?from=`), else null. */
  from: string | null;
  /** Whether `from` names no task docket has now (nothing to pre-fill from). */
  missing: boolean;
  /** Whether its data is sealed with a key this dashboard lacks: it cannot be duplicated here. */
  encrypted: boolean;
  prefill: AddPrefill;
}

const EMPTY: AddPrefill = { data: '{}', name: '', priority: 0, group: '', maxAttempts: '' };

/** Reads what the form is pre-filled with: the task `?from=` names (its data as indented JSON), or nothing. */
export async function readAddPage(scheduler: Scheduler, queue: string, url: URL): Promise<AddPage> {
  const from = parseHashParam(url.searchParams.get('from')) ?? null;
  if (from === null) return { queue, from, missing: false, encrypted: false, prefill: EMPTY };
  const task = await scheduler.get(from, { queue });
  if (task === null) return { queue, from, missing: true, encrypted: false, prefill: EMPTY };
  const encrypted = task.encrypted === true && task.data === null;
  const data = encrypted ? ENCRYPTED : (JSON.stringify(task.data, null, 2) ?? 'null');
  return {
    queue,
    from,
    missing: false,
    encrypted,
    prefill: { data, name: task.name ?? '', priority: task.level, group: task.group ?? '', maxAttempts: String(task.maxAttempts) },
  };
}

function field(label: string, control: Html, wide = false): Html {
  return html`<label class="${wide ? 'field wide' : 'field'}"><span>${label}</span>${control}</label>`;
}

/** The page's body: the form, and where the answer of a send shows. */
export function addBody(view: View, p: AddPage): Html {
  const f = p.prefill;
  const levels = Array.from({ length: 10 }, (_, n) => html`<option value="${n}"${n === f.priority ? html` selected` : ''}>${n === 0 ? '0 (normal)' : String(n)}</option>`);
  const note = p.missing
    ? html`<p class="banner" data-from-missing>No task <code>${p.from}</code> in queue ${printable(p.queue)} now: nothing to copy. The form is empty.</p>`
    : p.encrypted
      ? html`<p class="banner">Its data is encrypted with a key this dashboard was not given: it cannot be copied here.</p>`
      : p.from === null
        ? ''
        : html`<p class="note">A copy of <code>${p.from}</code>: its data and options. Sending puts a new task like it; if an equal task is still queued, the answer says it is a duplicate and nothing is added.</p>`;
  const title = p.from === null ? 'Add a task' : 'Duplicate a task';
  return html`<section class="card"><h1>${title}</h1>${note}
<form class="act add" method="post" action="${view.base}/api/add" data-action="add" data-stay><input type="hidden" name="csrf" value="${view.csrf}">
<div class="fields-grid">${field('queue', html`<input name="queue" value="${p.queue}" required maxlength="128" spellcheck="false" autocomplete="off">`)}
${field('name', html`<input name="name" value="${f.name}" maxlength="128" placeholder="optional: the handler's name" spellcheck="false" autocomplete="off">`)}
${field('delay (ms)', html`<input name="delay" type="number" min="0" step="1" value="0" inputmode="numeric">`)}
${field('priority', html`<select name="priority">${levels}</select>`)}
${field('group', html`<input name="group" value="${f.group}" maxlength="128" placeholder="optional" spellcheck="false" autocomplete="off">`)}
${field('most attempts', html`<input name="maxAttempts" type="number" min="1" max="1000" step="1" value="${f.maxAttempts}" placeholder="default">`)}</div>
${field('data (JSON)', html`<textarea name="data" rows="10" required maxlength="${MAX_DATA_CHARS}" spellcheck="false" data-json aria-describedby="data-error">${p.encrypted ? '' : f.data}</textarea>`, true)}
<p class="field-error" id="data-error" data-json-error role="alert"></p>
<div class="actions start"><button type="submit" class="btn primary">${p.from === null ? 'Add task' : 'Add the copy'}</button></div>
<p class="add-result" data-result aria-live="polite"></p></form></section>`;
}
