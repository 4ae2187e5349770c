/**
 * The command table, and the help generated from it. A new command is a Command object added to COMMANDS: main dispatches on the table, refuses flags a command does
 * not list, and help picks it up. A long-running command stops on `ctx.interrupted()`.
 */
import { helpText as layOut } from './help';
import { positionals, UsageError, type Command } from './command';
import { pause, resume, stats } from './queues';
import { result } from './outcome';
import { cancel, inspect, list, priority, redrive, reschedule } from './tasks';
import { dashboard } from './dashboard';
import { limit, limits } from './limits';
import { pauseSchedule, resumeSchedule, runSchedule, schedules, unschedule } from './schedules';
import { watch } from './watch';
import { workers } from './workers';
import { clean, obliterate, purgeDead } from './clean';
import { libraries } from './libraries';

const help: Command = {
  name: 'help',
  usage: '[command]',
  summary: 'this help, or the help of one command',
  flags: [],
  prepare(input) {
    const [name] = positionals('help', input, ['command'], 1);
    const command = name === undefined ? undefined : findCommand(name);
    return async ({ out }) => {
      out.write(helpText(command));
      return 0;
    };
  },
};

/** Every command, in the order help lists them. */
export const COMMANDS: readonly Command[] = [
  stats,
  list,
  inspect,
  result,
  reschedule,
  priority,
  cancel,
  redrive,
  purgeDead,
  clean,
  obliterate,
  pause,
  resume,
  limits,
  limit,
  schedules,
  unschedule,
  pauseSchedule,
  resumeSchedule,
  runSchedule,
  watch,
  workers,
  libraries,
  dashboard,
  help,
];

/** The command called `name`; a UsageError for a name no command has. */
export function findCommand(name: string): Command {
  const command = COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
  if (!command) throw new UsageError(`unknown command '${name}'`);
  return command;
}

/** The help of one command, or the overview of all of them (help.ts lays them out). */
export function helpText(command?: Command): string {
  return layOut(COMMANDS, command);
}
