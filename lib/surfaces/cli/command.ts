/**
 * What a CLI command is: a name, its usage, the flags it takes, and a `prepare` step that checks
 * every argument before anything connects, so bad usage never reaches Redis. The command table
 * (commands.ts) is a list of these.
 */
import type { Scheduler } from '../../types/scheduler';

/** Bad usage (unknown command or flag, missing or extra argument, bad value): exit code 2. */
export class UsageError extends Error {
  /** What `--json` prints as the error's code. */
  readonly code = 'ERR_USAGE';

  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/**
 * A failure at run time that the command has put in words for the operator (the dashboard's port
 * is taken): exit code 1, and its message is the whole line printed.
 */
export class RunError extends Error {
  /** What `--json` prints as the error's code: `ERR_RUN`, or `ERR_TARGET` for a TargetError. */
  readonly code: 'ERR_RUN' | 'ERR_TARGET';

  constructor(message: string, code: 'ERR_RUN' | 'ERR_TARGET' = 'ERR_RUN') {
    super(message);
    this.name = 'RunError';
    this.code = code;
  }
}

/**
 * The task a command names is missing, or in a state the command cannot act on (cancel of an
 * active task): exit code 1, as for any other failure at run time.
 */
export class TargetError extends RunError {
  constructor(message: string) {
    super(message, 'ERR_TARGET');
    this.name = 'TargetError';
  }
}

/** Where a command's results go: JSON under --json, text for a person otherwise. */
export interface Output {
  readonly json: boolean;
  /** Whether stdout is a terminal: watch then redraws in place. */
  readonly tty: boolean;
  /** Prints `doc` as one JSON document under --json, else the text `text()` returns. */
  emit(doc: unknown, text: () => string): void;
  /** Writes raw text (watch draws its own frames). */
  write(text: string): void;
}

/** What a prepared command gets to run with. */
export interface RunContext {
  /** Opens the scheduler on first call (and main closes it); `help` never calls it. */
  connect(): Promise<Scheduler>;
  out: Output;
  /** The key prefix in use, for messages. */
  prefix: string;
  /**
   * A signal aborted by io.signal or by SIGINT, for commands that run until stopped (watch and
   * dashboard). SIGINT is only caught once this is called, so Ctrl-C still ends the
   * process at once during every other command.
   */
  interrupted(): AbortSignal;
  /**
   * Asks the operator `question` (on stderr) and reads a line from stdin: true for y or yes. A
   * UsageError when there is no stdin to ask on (pass --yes).
   */
  confirm(question: string): Promise<boolean>;
}

/** A checked command, ready to run; resolves to the exit code. */
export type Run = (ctx: RunContext) => Promise<number>;

/** The values of the command-specific flags, as parseArgs gives them. */
export interface CommandFlags {
  state?: string;
  limit?: string;
  offset?: string;
  all?: boolean;
  interval?: string;
  port?: string;
  host?: string;
  token?: string;
  'token-file'?: string;
  'insecure-no-token'?: boolean;
  wait?: string;
  concurrency?: string;
  rate?: string;
  'group-limit'?: string;
  'group-rate'?: string;
  group?: string;
  hold?: string;
  'older-than'?: string;
  yes?: boolean;
  force?: boolean;
  running?: boolean;
  queue?: string;
  'remove-unused'?: boolean;
}

/** A command's arguments: the positionals after its name, its own flags, and the environment. */
export interface Input {
  args: string[];
  flags: CommandFlags;
  /** io.env: for what should not be on the command line, which every user can read (a token). */
  env: Readonly<Record<string, string | undefined>>;
}

export interface Command {
  name: string;
  /** Old names that still run it (`requeue-dead` for `redrive`); help lists the command by `name` only. */
  aliases?: readonly string[];
  /** Its positionals as help shows them: `<queue> [hash]`. */
  usage: string;
  summary: string;
  /** More help, shown by `docket help <command>` under the summary. */
  details?: string;
  /** The command-specific flags it accepts; the global ones are always accepted. */
  flags: ReadonlyArray<keyof CommandFlags>;
  /**
   * What help says of a flag this command takes otherwise than FLAG_HELP (args.ts) says: clean's
   * --state takes fewer states than list's, and its --limit has no cap of 1000.
   */
  flagHelp?: Partial<Record<keyof CommandFlags, string>>;
  /**
   * Checks the arguments before anything connects and returns what to run; throws UsageError.
   * No I/O but one small local read: the dashboard's --token-file.
   */
  prepare(input: Input): Run;
}

/**
 * The positionals named in `names`, in order; the last `optional` of them may be left out.
 * Throws a UsageError naming the first missing one, or the first extra one.
 */
export function positionals(command: string, input: Input, names: string[], optional = 0): Array<string | undefined> {
  const { args } = input;
  if (args.length < names.length - optional) {
    throw new UsageError(`${command}: missing <${names[args.length]}>`);
  }
  if (args.length > names.length) {
    throw new UsageError(`${command}: unexpected argument '${args[names.length]}'`);
  }
  return names.map((_, i) => args[i]);
}
