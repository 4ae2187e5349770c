/**
 * The help texts, laid out from the command table (commands.ts) and the flags' help (args.ts) to
 * fit a terminal of 100 columns: every line is at most HELP_WIDTH characters, words wrapped under
 * the column they started in. A long usage (limit's) gets a line of its own in the overview, so
 * it does not push every description to the right.
 */
import { FLAG_HELP, GLOBAL_FLAGS } from './args';
import type { Command, CommandFlags } from './command';

/** The widest line any help text prints. */
export const HELP_WIDTH = 100;
/** Where a flag's description starts: after the widest flag (`--concurrency <n|off>`) and two spaces. */
const FLAG_COLUMN = 25;
/** Usages longer than this stand on a line of their own in the overview, their summary under them. */
const USAGE_COLUMN_MAX = 40;

/**
 * `text` (its line breaks taken as spaces) as lines of at most `width` characters, broken at
 * spaces; every line after the first starts with `indent` spaces. A word longer than a line stands
 * on a line alone rather than be cut.
 */
export function wrap(text: string, width: number, indent = 0): string[] {
  const words = text.split(/\s+/).filter((w) => w !== '');
  const lines: string[] = [];
  let line = '';
  for (const word of words) {
    const lead = lines.length === 0 ? 0 : indent;
    if (line !== '' && lead + line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '' || lines.length === 0) lines.push(line);
  return lines.map((l, i) => (i === 0 ? l : `${' '.repeat(indent)}${l}`));
}

/**
 * `head`, then `text` wrapped in the column from `column` to the help's width: beside `head` when
 * `head` leaves two spaces before the column, else starting on the line below it.
 */
function hanging(head: string, column: number, text: string): string {
  const lines = wrap(text, HELP_WIDTH - column).map((l) => `${' '.repeat(column)}${l}`);
  if (head.length <= column - 2) lines[0] = `${head.padEnd(column)}${lines[0].trimStart()}`;
  else lines.unshift(...wrap(head.trimStart(), HELP_WIDTH - 2, 4).map((l) => `  ${l}`));
  return lines.join('\n');
}

/** The flags' help lines; `own` holds a command's own words for a flag (Command.flagHelp). */
function flagLines(flags: ReadonlyArray<keyof CommandFlags | (typeof GLOBAL_FLAGS)[number]>, own: Command['flagHelp'] = {}): string {
  return flags.map((f) => hanging(`  ${FLAG_HELP[f][0]}`, FLAG_COLUMN, (own as Record<string, string | undefined>)[f] ?? FLAG_HELP[f][1])).join('\n');
}

/** A paragraph wrapped to the help's width. */
function paragraph(text: string): string {
  return wrap(text, HELP_WIDTH).join('\n');
}

/** The help of one command. */
function commandHelp(command: Command): string {
  const usage = wrap(`Usage: docket ${command.name} ${command.usage}`, HELP_WIDTH, `Usage: docket ${command.name} `.length).join('\n');
  const summary = paragraph(`${command.summary[0].toUpperCase()}${command.summary.slice(1)}.`);
  const about = command.details ? `${summary}\n${paragraph(command.details)}` : summary;
  const own = command.flags.length > 0 ? `Options:\n${flagLines(command.flags, command.flagHelp)}\n\n` : '';
  return `${usage}\n\n${about}\n\n${own}Global options:\n${flagLines(GLOBAL_FLAGS)}\n`;
}

/** The overview's list of commands: usage, then summary in a column, a long usage on its own line. */
function commandList(commands: readonly Command[]): string {
  const usages = commands.map((c) => `${c.name} ${c.usage}`);
  const column = 2 + Math.max(...usages.filter((u) => u.length <= USAGE_COLUMN_MAX).map((u) => u.length)) + 2;
  return commands.map((c, i) => hanging(`  ${usages[i]}`, column, c.summary)).join('\n');
}

/** The help of one command, or the overview of all of `commands`. */
export function helpText(commands: readonly Command[], command?: Command): string {
  if (command) return commandHelp(command);
  return [
    'Usage: docket <command> [arguments] [options]',
    '',
    'Inspect and operate docket queues on Redis.',
    '',
    `Commands:\n${commandList(commands)}`,
    '',
    `Global options (before or after the command):\n${flagLines(GLOBAL_FLAGS)}`,
    '',
    "Run 'docket help <command>' for a command's own options.",
    'A <hash> may be cut to a prefix of 6 or more characters that no other task of the queue starts with.',
    'Exit codes: 0 success, 1 failure (Redis unreachable, task not found), 2 bad usage.',
    '',
  ].join('\n');
}
