/**
 * The scheduler's calls on recurring schedules: those a process declares and keeps going
 * (every(), in running.ts) and those stored in Redis that every work() loop of their queue keeps
 * going (schedule(): lib/features/schedules.ts).
 */
import { listSchedules } from '../../features/recurring';
import * as schedules from '../../features/schedules';
import type { Json, JsonCompatible } from '../../types/json';
import type { PutResult } from '../../types/put';
import type { QueueOption } from '../../types/queue';
import type { EveryOptions, Schedule, ScheduleInfo, ScheduleOptions, SchedulerSchedules } from '../../types/schedules';
import { WithWorkers } from './workers';

export abstract class WithSchedules extends WithWorkers implements SchedulerSchedules {
  every(name: string, schedule: Schedule, data: Json, options?: EveryOptions): Promise<void>;
  every<T>(name: string, schedule: Schedule, data: T & JsonCompatible<T>, options?: EveryOptions): Promise<void>;
  every(name: string, schedule: Schedule, data: unknown, options?: EveryOptions): Promise<void> {
    return this.open(() => this.running.every(name, schedule, data as Json, options));
  }

  schedule(name: string, schedule: Schedule, data: Json, options?: ScheduleOptions): Promise<void>;
  schedule<T>(name: string, schedule: Schedule, data: T & JsonCompatible<T>, options?: ScheduleOptions): Promise<void>;
  schedule(name: string, schedule: Schedule, data: unknown, options?: ScheduleOptions): Promise<void> {
    return this.open(() => schedules.storeSchedule(this.ctx, name, schedule, data, options));
  }

  unschedule(name: string, options?: QueueOption): Promise<boolean> {
    return this.open(() => this.running.unschedule(name, options));
  }

  listSchedules<T = Json>(options?: QueueOption): Promise<ScheduleInfo<T>[]> {
    return this.open(() => listSchedules<T>(this.ctx, this.ctx.queueOf(options)));
  }

  pauseSchedule(name: string, options?: QueueOption): Promise<boolean> {
    return this.open(() => schedules.holdSchedule(this.ctx, this.ctx.queueOf(options), name, true));
  }

  resumeSchedule(name: string, options?: QueueOption): Promise<boolean> {
    return this.open(() => schedules.holdSchedule(this.ctx, this.ctx.queueOf(options), name, false));
  }

  runScheduleNow(name: string, options?: QueueOption): Promise<PutResult | null> {
    return this.open(() => schedules.runNow(this.ctx, this.ctx.queueOf(options), name));
  }
}
