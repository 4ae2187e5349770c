/**
 * The page's buttons. Each is a real `<form method="post">` carrying the CSRF token, so it works
 * with script off (the server answers 303 back to the page); with script on, the client posts the
 * same fields as JSON and refreshes in place.
 */
import type { Action } from './api';
import { html, type Html } from './html';

/** What every rendered piece needs: where the API lives, the CSRF token, the server's now. */
export interface View {
  /** The mount path, '' or '/docket'. */
  base: string;
  csrf: string;
  /** The Redis clock when the data was read (epoch ms). */
  now: number;
}

export type ButtonKind = 'primary' | 'danger' | 'plain';

export interface FormSpec {
  action: Action;
  queue: string;
  hash?: string;
  label: string;
  kind: ButtonKind;
  /** Asked with confirm() before posting (script on only): for actions that delete. */
  confirm?: string;
  /** Extra controls placed before the button (the reschedule choice). */
  controls?: Html;
  /**
   * The controls post on their own when changed (script on: one choice, one action) and the
   * button is hidden; with script off, the button posts them.
   */
  auto?: boolean;
}

export function actionForm(view: View, spec: FormSpec): Html {
  return html`<form class="act" method="post" action="${view.base}/api/${spec.action}" data-action="${spec.action}"${
    spec.confirm ? html` data-confirm="${spec.confirm}"` : ''
  }${spec.auto ? html` data-auto` : ''}><input type="hidden" name="csrf" value="${view.csrf}"><input type="hidden" name="queue" value="${spec.queue}">${
    spec.hash === undefined ? '' : html`<input type="hidden" name="hash" value="${spec.hash}">`
  }${spec.controls ?? ''}<button type="submit" class="btn ${spec.kind}${spec.auto ? ' auto' : ''}">${spec.label}</button></form>`;
}

/** The choices of when to run a rescheduled task, relative to the Redis clock. */
const WHEN: Array<[number, string]> = [
  [0, 'now'],
  [60_000, 'in 1 min'],
  [600_000, 'in 10 min'],
  [3_600_000, 'in 1 h'],
  [86_400_000, 'in 1 day'],
];

export function rescheduleForm(view: View, queue: string, hash: string): Html {
  const options = WHEN.map(([ms, label]) => html`<option value="${ms}"${ms === 600_000 ? html` selected` : ''}>${label}</option>`);
  const controls = html`<select name="delay" data-key="${hash}" aria-label="when to run">${options}</select>`;
  return actionForm(view, { action: 'reschedule', queue, hash, label: 'Reschedule', kind: 'plain', controls });
}

export function cancelForm(view: View, queue: string, hash: string): Html {
  return actionForm(view, { action: 'cancel', queue, hash, label: 'Cancel', kind: 'danger', confirm: 'Delete this task for good?' });
}

export function redriveForm(view: View, queue: string, hash: string): Html {
  return actionForm(view, { action: 'redrive', queue, hash, label: 'Re-drive', kind: 'primary' });
}

export function pauseForm(view: View, queue: string, paused: boolean): Html {
  return paused ? actionForm(view, { action: 'resume', queue, label: 'Resume', kind: 'primary' }) : actionForm(view, { action: 'pause', queue, label: 'Pause', kind: 'plain' });
}

/** The ages a clean offers: every task of the state, or only those put (dead: died) this long ago. */
const AGES: Array<[string, string]> = [
  ['', 'all'],
  ['3600000', 'older than 1 h'],
  ['86400000', 'older than 1 day'],
  ['604800000', 'older than 7 days'],
];

/** Deletes a queue's tasks of one state in batches (scheduler.clean), all or only the old ones. */
export function cleanForm(view: View, queue: string, state: 'ready' | 'delayed' | 'dead'): Html {
  const options = AGES.map(([ms, label]) => html`<option value="${ms}">${label}</option>`);
  const controls = html`<input type="hidden" name="state" value="${state}"><select name="olderThan" data-key="clean-${state}" aria-label="which ${state} tasks to clean">${options}</select>`;
  return actionForm(view, { action: 'clean', queue, label: 'Clean', kind: 'danger', confirm: `Delete these ${state} tasks of this queue for good?`, controls });
}

/** Sends every dead task of the queue back to ready (scheduler.redriveAll), as `docket redrive --all` does. */
export function redriveAllForm(view: View, queue: string): Html {
  return actionForm(view, { action: 'redrive-all', queue, label: 'Re-drive all', kind: 'primary', confirm: 'Send every dead task of this queue back to ready?' });
}

export function purgeForm(view: View, queue: string): Html {
  return actionForm(view, { action: 'purge-dead', queue, label: 'Purge all dead', kind: 'danger', confirm: 'Delete every dead task of this queue?' });
}

/** The priority levels a pending task can be moved to: 0 (normal) to 9 (claimed first). */
const LEVELS = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9];

/**
 * A pending task's priority as one choice (scheduler.changePriority): picking a level posts it
 * (script on); with script off, the Set button does. No `data-key`: a refresh shows the level in force.
 */
export function priorityForm(view: View, queue: string, hash: string, level: number): Html {
  const options = LEVELS.map((n) => html`<option value="${n}"${n === level ? html` selected` : ''}>${n === 0 ? 'normal' : `priority ${n}`}</option>`);
  const controls = html`<select name="priority" aria-label="priority" data-priority="${hash}">${options}</select>`;
  return actionForm(view, { action: 'priority', queue, hash, label: 'Set', kind: 'plain', controls, auto: true });
}

/** Runs a delayed task now: its run-at becomes the Redis clock's now (scheduler.reschedule). */
export function runNowForm(view: View, queue: string, hash: string): Html {
  return actionForm(view, { action: 'run-now', queue, hash, label: 'Run now', kind: 'primary' });
}

/** Puts a done task's data and options again as a new task (scheduler.runAgain); de-dup rules apply. */
export function runAgainForm(view: View, queue: string, hash: string): Html {
  return actionForm(view, { action: 'run-again', queue, hash, label: 'Run again', kind: 'primary' });
}

/** The add page pre-filled with a task's data and options: a new task like it, once sent. */
export function duplicateLink(view: View, queue: string, hash: string): Html {
  const href = `${view.base}/add?queue=${encodeURIComponent(queue)}&from=${encodeURIComponent(hash)}`;
  return html`<a class="btn plain" href="${href}" data-duplicate="${hash}">Duplicate</a>`;
}

/** The buttons of a task's row and page, by its state: what can be done to it now. */
export function taskActions(view: View, queue: string, t: { hash: string; state: string; level: number }): Html {
  const { hash } = t;
  const dup = duplicateLink(view, queue, hash);
  const running = html`<input type="hidden" name="running" value="1">`;
  if (t.state === 'active')
    return html`${dup}${actionForm(view, { action: 'cancel', queue, hash, label: 'Cancel', kind: 'danger', confirm: 'Abort its handler and cancel this running task?', controls: running })}`;
  if (t.state === 'done') return html`${runAgainForm(view, queue, hash)}${dup}`;
  if (t.state === 'dead') return html`${redriveForm(view, queue, hash)}${rescheduleForm(view, queue, hash)}${dup}${cancelForm(view, queue, hash)}`;
  const now = t.state === 'delayed' ? runNowForm(view, queue, hash) : '';
  return html`${now}${priorityForm(view, queue, hash, t.level)}${rescheduleForm(view, queue, hash)}${dup}${cancelForm(view, queue, hash)}`;
}
