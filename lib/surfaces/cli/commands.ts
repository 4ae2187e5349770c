/**
 * The command table, and the help generated from it. A new command is a Command object added to COMMANDS: main dispatches on the table, refuses flags a command does
 * not list, and help picks it up. A long-running command stops on `ctx.interrupted()`.
 */
import { FLAG_HELP, GLOBAL_FLAGS } from './args';
import { positionals, UsageError, type Command } from './command';
import { pause, purgeDead, resume, stats } from './queues';
import { result } from './outcome';
import { cancel, inspect, list, priority, redrive, reschedule } from './tasks';
import { dashboard } from './dashboard';
import { limit, limits } from './limits';
import { pauseSchedule, resumeSchedule, runSchedule, schedules, unschedule } from './schedules';
import { watch } from './watch';
import { clean, obliterate } from './clean';

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
  dashboard,
  help,
];

/** The command called `name`; a UsageError for a name no command has. */
export function findCommand(name: string): Command {
  const command = COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
  if (!command) throw new UsageError(`unknown command '${name}'`);
  return command;
}

/** The help of one command, or the overview of all of them. */
export function helpText(command?: Command): string {
  const global = GLOBAL_FLAGS.map((f) => `  ${FLAG_HELP[f]}`).join('\n');
  if (command) {
    const own = command.flags.map((f) => `  ${FLAG_HELP[f]}`).join('\n');
    const summary = `${command.summary[0].toUpperCase()}${command.summary.slice(1)}.`;
    const about = command.details ? `${summary}\n${command.details}` : summary;
    return `Usage: docket ${command.name} ${command.usage}\n\n${about}\n\n${own ? `Options:\n${own}\n\n` : ''}Global options:\n${global}\n`;
  }
  const width = Math.max(...COMMANDS.map((c) => `${c.name} ${c.usage}`.length));
  const lines = COMMANDS.map((c) => `  ${`${c.name} ${c.usage}`.padEnd(width)}  ${c.summary}`).join('\n');
  return [
    'Usage: docket <command> [arguments] [options]',
    '',
    'Inspect and operate docket queues on Redis.',
    '',
    `Commands:\n${lines}`,
    '',
    `Global options (before or after the command):\n${global}`,
    '',
    "Run 'docket help <command>' for a command's own options.",
    'Exit codes: 0 success, 1 failure (Redis unreachable, task not found), 2 bad usage.',
    '',
  ].join('\n');
}
