/** The scheduler's calls on a whole queue: counts, pages of tasks, pause, clean, obliterate. */
import * as admin from '../../features/admin';
import { clean, obliterate } from '../../features/clean';
import { pauseGroup } from '../../features/groups';
import type { Json } from '../../types/json';
import type { ListOptions, PreviewListOptions, PreviewPage, TaskPage } from '../../types/lists';
import type { QueueOption } from '../../types/queue';
import type { CleanOptions, ObliterateOptions, PauseOptions, QueueStats, SchedulerQueues } from '../../types/queues';
import type { TaskState } from '../../types/task';
import { WithClaims } from './claims';

export abstract class WithQueues extends WithClaims implements SchedulerQueues {
  stats(options?: QueueOption): Promise<QueueStats> {
    return this.open(() => admin.stats(this.ctx, this.ctx.queueOf(options)));
  }

  pause(options?: PauseOptions | string): Promise<boolean> {
    return this.open(() => this.setPaused('pause', options, true));
  }

  resume(options?: PauseOptions | string): Promise<boolean> {
    return this.open(() => this.setPaused('resume', options, false));
  }

  /** A group's pause (`group` given), else the queue's; `group: undefined` means the queue. */
  private setPaused(method: string, options: PauseOptions | string | undefined, paused: boolean): Promise<boolean> {
    if (typeof options !== 'object' || options === null || !('group' in options)) return admin.setPaused(this.ctx, this.deprecated.queueIn(method, options), paused);
    const { group, ...rest } = options;
    return group === undefined ? admin.setPaused(this.ctx, this.ctx.queueOf(rest), paused) : pauseGroup(this.ctx, options, paused);
  }

  list(state: TaskState, options: PreviewListOptions): Promise<PreviewPage>;
  list<T = Json>(state: TaskState, options?: ListOptions): Promise<TaskPage<T>>;
  list<T = Json>(state: TaskState, options?: ListOptions | PreviewListOptions): Promise<TaskPage<T> | PreviewPage> {
    return this.open(() => admin.list<T>(this.ctx, state, options));
  }

  queues(): Promise<string[]> {
    return this.open(() => admin.queues(this.ctx));
  }

  time(): Promise<number> {
    return this.open(() => admin.serverTime(this.ctx));
  }

  clean(options: CleanOptions): Promise<number> {
    return this.open(() => clean(this.ctx, options));
  }

  obliterate(options?: ObliterateOptions): Promise<void> {
    return this.open(() => obliterate(this.ctx, options));
  }
}
