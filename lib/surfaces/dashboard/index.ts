/**
 * The live web dashboard: every queue's counts, a throughput chart, the next delayed tasks on a
 * timeline, tasks waiting on their dependencies, active tasks with their holders, dead tasks with
 * their errors and buttons to act on them, and a lookup of one task by hash (with what it was put
 * after, or its kept outcome); beside it, each state's tasks a page at a time with search, a page
 * per task, and the queue's schedules, live workers and groups; the everyday actions (a priority,
 * run now, add a task or duplicate one) one click each, and the chart's 24-hour span. A plain `(req, res, next)`
 * handler, or a server of its own.
 */
export { createDashboard } from './handler';
export { serveDashboard } from './serve';
export type { Overview, QueueView, TaskList, TaskView, ActionResult } from './api';
export type { DependencyView, Lookup, OutcomeView, TaskDetail } from './lookup';
export type { ListPage, SearchInfo } from './lists';
export type { TaskPage } from './task-page';
export type { ScheduleView, SchedulesView } from './schedules-page';
export type { GroupsPage } from './groups-page';
export type { AddPage, AddPrefill } from './add-page';
export type { TaskActionResult } from './task-actions';
/** The JSON of `GET <base>/api/workers` is a WorkersPage, as `docket workers --json` prints it per queue. */
export type { ParkedView, TaskEvent, WorkerView, WorkersPage, WorkersView } from '../live';
