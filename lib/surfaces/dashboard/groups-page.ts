/**
 * A queue's groups (`GET /groups?queue=`): each group's limit (its own or the queue's default),
 * its active tasks, the ready tasks parked because it is at its limit, and whether its rate holds
 * it. Limits and active counts are groupLimits(); parked tasks and rate holds are read from the
 * `parked` and `gheld` keys (live.ts).
 */
import { printable } from '../printable';
import type { GroupLimits } from '../../types/limits';
import type { Scheduler } from '../../types/scheduler';
import { actionForm, type FormSpec, type View } from './forms';
import { html, relative, timeTag, type Html } from './html';
import { contextFor, MAX_PARKED, readParked, type ParkedView } from '../live';
import { taskLink } from './shell';

/** Most parked tasks listed per group; the rest are counted. */
const MAX_LISTED = 10;
/** Most groups listed. */
export const MAX_GROUPS = 500;

/** The JSON of `GET <base>/api/groups`: `parked` is null when this scheduler's keys cannot be read here. */
export interface GroupsPage {
  queue: string;
  now: number;
  limits: GroupLimits;
  parked: ParkedView | null;
}

export async function readGroupsPage(scheduler: Scheduler, queue: string): Promise<GroupsPage> {
  const ctx = contextFor(scheduler);
  const [now, limits, parked] = await Promise.all([scheduler.time(), scheduler.groupLimits({ queue }), ctx === null ? null : readParked(ctx, queue)]);
  return { queue, now, limits, parked };
}

function names(p: GroupsPage): string[] {
  const all = new Set([
    ...p.limits.paused,
    ...Object.keys(p.limits.groups),
    ...Object.keys(p.limits.active),
    ...Object.keys(p.parked?.byGroup ?? {}),
    ...Object.keys(p.parked?.rateHeld ?? {}),
  ]);
  return [...all].sort().slice(0, MAX_GROUPS);
}

function row(view: View, p: GroupsPage, g: string): Html {
  const own = p.limits.groups[g];
  const limit =
    own !== undefined
      ? html`${own} <span class="dim">own</span>`
      : p.limits.default === null
        ? html`<span class="dim">none</span>`
        : html`${p.limits.default} <span class="dim">default</span>`;
  const parked = p.parked?.byGroup[g] ?? [];
  const links = parked.slice(0, MAX_LISTED).map((h) => html`<li><a href="${taskLink(view, p.queue, h)}" data-task="${h}"><code>${printable(h)}</code></a></li>`);
  const more = parked.length > MAX_LISTED ? html`<li class="dim">and ${parked.length - MAX_LISTED} more</li>` : '';
  const held = p.parked?.rateHeld[g];
  const rate = held === undefined ? '' : html`<div class="dim">rate holds it, ${timeTag(held, `reopens ${relative(held, view.now)}`)}</div>`;
  return html`<tr data-group="${g}"><th scope="row"><code>${printable(g)}</code></th><td class="num">${limit}</td><td class="num" data-active>${p.limits.active[g] ?? 0}</td>
<td class="num" data-parked>${parked.length}</td><td>${parked.length === 0 ? '' : html`<ul class="deps">${links}${more}</ul>`}${rate}</td><td>${pauseGroupForm(view, p, g)}</td></tr>`;
}

/** Pauses or resumes one group (pause({ queue, group })): a paused group's tasks stay parked. */
function pauseGroupForm(view: View, p: GroupsPage, g: string): Html {
  const paused = p.limits.paused.includes(g);
  const controls = html`<input type="hidden" name="group" value="${g}">`;
  const spec = paused ? { action: 'resume', label: 'Resume', kind: 'primary' } : { action: 'pause', label: 'Pause', kind: 'plain' };
  return html`${paused ? html`<span class="dim" data-paused>paused</span> ` : ''}${actionForm(view, { ...(spec as Pick<FormSpec, 'action' | 'label' | 'kind'>), queue: p.queue, controls })}`;
}

export function groupsBody(view: View, p: GroupsPage): Html {
  const all = names(p);
  const limit = p.limits.default === null ? 'no limit for groups without their own' : `${p.limits.default} at once for each group without its own`;
  const count = p.parked === null ? '' : ` · ${p.parked.count} parked in all`;
  const head = html`<h2>Groups <span class="count">${all.length}</span> <span class="sub">${limit}${count}</span></h2>`;
  if (all.length === 0) return html`<section class="card">${head}<p class="empty">No group has a limit, an active task or a parked one.</p></section>`;
  const unread = p.parked === null ? html`<p class="note">Parked tasks cannot be read for this scheduler.</p>` : '';
  const cut = (p.parked?.count ?? 0) > MAX_PARKED ? html`<p class="more">Parked tasks listed from the first ${MAX_PARKED} by group.</p>` : '';
  return html`<section class="card">${head}<div class="scroll"><table class="groups"><thead><tr><th>group</th><th class="num">limit</th><th class="num">active</th><th class="num">parked</th><th>parked tasks, in the order they come back</th><th>pause</th></tr></thead>
<tbody>${all.map((g) => row(view, p, g))}</tbody></table></div>${unread}${cut}</section>`;
}
