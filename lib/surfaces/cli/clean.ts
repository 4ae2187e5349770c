/**
 * The commands that delete in bulk: purge-dead (every dead task of a queue), clean (a queue's
 * ready, delayed or dead tasks, optionally only the old ones) and obliterate (a whole queue). Each
 * asks for confirmation unless --yes: what they delete cannot be brought back.
 */
import { CLEAN_STATES } from '../../domain/options';
import { intArg, queueArg, spanMs } from './args';
import { positionals, RunError, UsageError, type Command, type RunContext } from './command';

type CleanState = (typeof CLEAN_STATES)[number];

function cleanStateArg(text: string | undefined): CleanState {
  if (text === undefined) throw new UsageError(`clean: missing --state (one of ${CLEAN_STATES.join(', ')})`);
  if (!(CLEAN_STATES as readonly string[]).includes(text)) throw new UsageError(`bad --state '${text}': expected one of ${CLEAN_STATES.join(', ')}`);
  return text as CleanState;
}

function olderThanArg(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const ms = spanMs(text);
  if (Number.isNaN(ms)) throw new UsageError(`bad --older-than '${text}': expected a span such as 30s, 5m, 1h or 7d`);
  return ms;
}

/** Asks unless --yes; a no ends the command with exit code 1 and nothing deleted. */
export async function confirmed(ctx: RunContext, yes: boolean, question: string): Promise<void> {
  if (yes) return;
  if (!(await ctx.confirm(question))) throw new RunError('not confirmed: nothing was deleted');
}

/** `3 dead tasks`, `1 ready task`: a count with its state, as questions and answers say it. */
function counted(count: number, state: string): string {
  return `${count} ${state} task${count === 1 ? '' : 's'}`;
}

export const purgeDead: Command = {
  name: 'purge-dead',
  usage: '<queue>',
  summary: 'delete every dead task of a queue',
  flags: ['yes'],
  prepare(input) {
    const queue = queueArg(positionals('purge-dead', input, ['queue'])[0]);
    return async (ctx) => {
      const s = await ctx.connect();
      const count = (await s.stats({ queue })).dead;
      await confirmed(ctx, input.flags.yes === true, `Delete the ${counted(count, 'dead')} of queue '${queue}'?`);
      const purged = await s.purgeDead({ queue });
      ctx.out.emit({ queue, purged }, () => `purged ${counted(purged, 'dead')} from queue '${queue}'\n`);
      return 0;
    };
  },
};

export const clean: Command = {
  name: 'clean',
  usage: '<queue>',
  summary: "delete a queue's ready, delayed or dead tasks, or only the old ones, in batches",
  details:
    'Ready and delayed tasks are aged by when they were put, dead ones by when they died. Tasks waiting on a deleted task learn it was cancelled. A task leased meanwhile is not deleted.',
  flags: ['state', 'older-than', 'limit', 'yes'],
  flagHelp: {
    state: `${CLEAN_STATES.slice(0, -1).join(', ')} or ${CLEAN_STATES[CLEAN_STATES.length - 1]} (required)`,
    limit: 'most tasks to delete, 1 or more (default all)',
  },
  prepare(input) {
    const queue = queueArg(positionals('clean', input, ['queue'])[0]);
    const state = cleanStateArg(input.flags.state);
    const olderThan = olderThanArg(input.flags['older-than']);
    const limit = input.flags.limit === undefined ? undefined : intArg('limit', input.flags.limit, 1, Number.MAX_SAFE_INTEGER, 0);
    return async (ctx) => {
      const s = await ctx.connect();
      const count = (await s.stats({ queue }))[state];
      const which = `${limit === undefined ? 'the' : `up to ${limit} of the`} ${counted(count, state)}`;
      await confirmed(ctx, input.flags.yes === true, `Delete ${which} of queue '${queue}'${input.flags['older-than'] ? ` older than ${input.flags['older-than']}` : ''}?`);
      const deleted = await s.clean({ queue, state, olderThan, limit });
      ctx.out.emit({ queue, state, deleted }, () => `deleted ${counted(deleted, state)} from queue '${queue}'\n`);
      return 0;
    };
  },
};

export const obliterate: Command = {
  name: 'obliterate',
  usage: '<queue>',
  summary: 'delete a queue and every key of it (refused while tasks of it are leased, unless --force)',
  details: 'Stop its workers first: a worker still running loses its leases (acks answer lost), and a put on the queue starts it afresh.',
  flags: ['force', 'yes'],
  prepare(input) {
    const queue = queueArg(positionals('obliterate', input, ['queue'])[0]);
    const force = input.flags.force === true;
    return async (ctx) => {
      const s = await ctx.connect();
      await confirmed(ctx, input.flags.yes === true, `Delete queue '${queue}' and every task of it${force ? ', leased ones too' : ''}?`);
      await s.obliterate({ queue, force });
      ctx.out.emit({ queue, obliterated: true }, () => `obliterated queue '${queue}'\n`);
      return 0;
    };
  },
};
