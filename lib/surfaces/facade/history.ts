/** The scheduler's calls on what a queue keeps of its finished tasks: its done history and its dead tasks. */
import * as dead from '../../life/dead';
import * as history from '../../life/history';
import type { DeadTask, KeepOptions, ListDeadOptions, SchedulerHistory } from '../../types/history';
import type { Json } from '../../types/json';
import type { PutResult } from '../../types/put';
import type { QueueOption } from '../../types/queue';
import { WithQueues } from './queues';

export abstract class WithHistory extends WithQueues implements SchedulerHistory {
  keep(options: KeepOptions): Promise<void> {
    return this.open(() => history.keep(this.ctx, options));
  }

  runAgain(hash: string, options?: QueueOption): Promise<PutResult | null> {
    return this.open(() => history.runAgain(this.ctx, hash, options));
  }

  listDead<T = Json>(options?: ListDeadOptions): Promise<DeadTask<T>[]> {
    return this.open(() => dead.listDead<T>(this.ctx, options));
  }

  redriveAll(options?: QueueOption): Promise<number> {
    return this.open(() => dead.redrive(this.ctx, this.ctx.queueOf(options)));
  }

  purgeDead(options?: QueueOption): Promise<number> {
    return this.open(() => dead.purgeDead(this.ctx, this.ctx.queueOf(options)));
  }
}
