/**
 * The schedules page's actions (`POST /api/run-schedule`, `pause-schedule`, `resume-schedule`
 * with `{ queue, name }`): Scheduler.runScheduleNow, pauseSchedule and resumeSchedule. Apart from
 * the page (schedules-page.ts), which renders their forms, so that api.ts, which dispatches every
 * action, imports no page.
 */
import { parse, scheduleName } from '../../domain/options';
import type { PutStatus } from '../../types/put';
import type { Scheduler } from '../../types/scheduler';
import { HttpError } from './http';
import { parseQueueBody } from './options';

/** What a schedule's action answers: an ActionResult of api.ts. */
type ScheduleResult = { ok: true; queue: string } & ({ changed: boolean } | { hash: string; status: PutStatus });

export const SCHEDULE_ACTIONS = ['run-schedule', 'pause-schedule', 'resume-schedule'] as const;

/** Runs a schedule's action on `{ queue, name }`: a 404 when there is no such schedule. */
export async function scheduleAction(scheduler: Scheduler, action: (typeof SCHEDULE_ACTIONS)[number], body: unknown): Promise<ScheduleResult> {
  const { name, ...rest } = (body ?? {}) as { name?: unknown };
  const { queue } = parseQueueBody(rest);
  const schedule = parse(scheduleName, name, 'name');
  const missing = () => new HttpError(404, 'ERR_NOT_FOUND', `no schedule ${schedule} in queue ${queue}`, 'name');
  if (action === 'run-schedule') {
    const put = await scheduler.runScheduleNow(schedule, { queue });
    if (put === null) throw missing();
    return { ok: true, queue, hash: put.hash, status: put.status };
  }
  const changed = await scheduler[action === 'pause-schedule' ? 'pauseSchedule' : 'resumeSchedule'](schedule, { queue });
  if (!changed && !(await scheduler.listSchedules({ queue })).some((info) => info.name === schedule)) throw missing();
  return { ok: true, queue, changed };
}
