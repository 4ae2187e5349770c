/**
 * `docket dashboard`: the web dashboard (lib/dashboard) on a local HTTP server, until Ctrl-C (or
 * io.signal) stops it. It binds 127.0.0.1 unless --host says otherwise: the dashboard can change
 * tasks, so it is not put on a network unasked. A token makes it ask for that token (`?token=`
 * once, then the browser keeps it in a cookie). On any other address it always asks for one:
 * without a token it generates one and prints the URL that carries it (as Jupyter does), unless
 * --insecure-no-token says, by a name nobody types by accident, not to.
 *
 * The token comes from --token, --token-file or $DOCKET_DASHBOARD_TOKEN, in that order. A flag's
 * value is in the process list (ps, /proc/<pid>/cmdline) for every user of the machine to read;
 * a file's or the environment's is not. A token given is never printed (stdout often ends up in a
 * log): only where it came from. A generated one is, since nothing else tells it.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { serveDashboard } from '../dashboard';
import { hostName } from '../dashboard/options';
import { intArg } from './args';
import { positionals, RunError, UsageError, type Command, type Input } from './command';

/** Tokens the dashboard accepts (lib/surfaces/dashboard/options.ts): long enough not to be guessed. */
const TOKEN = /^[\x21-\x7e]{16,512}$/;
const TOKEN_HINT = 'expected 16 to 512 visible ASCII characters';
export const TOKEN_ENV = 'DOCKET_DASHBOARD_TOKEN';

/** More than any token file holds: reading stops there, so a wrong path (/dev/zero) cannot fill memory. */
const MAX_TOKEN_FILE_BYTES = 4096;

export const dashboard: Command = {
  name: 'dashboard',
  usage: '',
  summary: 'serve the web dashboard on http://127.0.0.1 until Ctrl-C',
  details:
    'Opens no browser: open the URL it prints. With --host 0.0.0.0 (any address but loopback) it asks for a token:\n' +
    'without one it generates one and prints, once, the URL that carries it. --insecure-no-token serves without\n' +
    'a token, for a proxy of your own in front that authenticates every request.\n' +
    `The token may also come from $${TOKEN_ENV}, which --token and --token-file override. A token given is\n` +
    'never printed, only where it came from.',
  flags: ['port', 'host', 'token', 'token-file', 'insecure-no-token'],
  prepare(input) {
    positionals('dashboard', input, []);
    const port = intArg('port', input.flags.port, 0, 65535, 8650);
    const host = hostArg(input.flags.host);
    const { token, from } = tokenOf(input);
    const insecureNoToken = input.flags['insecure-no-token'] === true;
    if (insecureNoToken && token !== undefined) {
      throw new UsageError(`dashboard: --insecure-no-token and a token (--token, --token-file or $${TOKEN_ENV}): give one or the other`);
    }
    return async (ctx) => {
      const scheduler = await ctx.connect();
      let warning: string | null = null;
      const options = { port, host, token, insecureNoToken, onWarning: (message: string) => void (warning = message) };
      const server = await serveDashboard(scheduler, options).catch((err: unknown) => Promise.reject(listenError(err, host, port)));
      const stopped = ctx.interrupted();
      // A token given is not printed, in the URL or anywhere: only where it came from.
      const url = from === null ? server.url : withoutToken(server.url);
      const doc = { url, host, port: Number(new URL(url).port), tokenGenerated: server.tokenGenerated, tokenFrom: from, warning };
      ctx.out.emit(doc, () => banner(url, server.tokenGenerated, from, host, warning));
      await new Promise<void>((resolve) => (stopped.aborted ? resolve() : stopped.addEventListener('abort', () => resolve(), { once: true })));
      await server.close();
      return 0;
    };
  },
};

/**
 * What the operator reads: the URL (the only place a generated token is printed), and why it has
 * one; for a token given, where it came from.
 */
function banner(url: string, generated: boolean, from: string | null, host: string, warning: string | null): string {
  const lines = [`docket dashboard: ${url}`];
  if (generated) {
    lines.push(
      `No token was given for ${host}, which is not loopback, so one was generated for this run: open the URL above,`,
      `which carries it (the browser then keeps it in a cookie). Set your own with --token-file or $${TOKEN_ENV}.`,
    );
  }
  if (from !== null) lines.push(`token: from ${from} (not printed): open the URL above with ?token=<the token> added once`);
  if (warning !== null) lines.push(`WARNING: ${warning}`);
  return `${lines.join('\n')}\nPress Ctrl-C to stop.\n`;
}

/** The URL without its `?token=`. */
function withoutToken(url: string): string {
  const parsed = new URL(url);
  parsed.searchParams.delete('token');
  return parsed.toString();
}

function hostArg(text: string | undefined): string {
  if (text === undefined) return '127.0.0.1';
  const result = hostName.safeParse(text);
  if (!result.success) throw new UsageError(`invalid --host '${text}': ${result.error.issues[0].message}`);
  return text;
}

/** The token given, and where it came from (for the banner: the token itself is not printed). */
function tokenOf(input: Input): { token: string | undefined; from: string | null } {
  const { token, 'token-file': file } = input.flags;
  if (token !== undefined && file !== undefined) throw new UsageError('dashboard: give --token or --token-file, not both');
  if (token !== undefined) return { token: checked(token, 'bad --token'), from: '--token' };
  if (file !== undefined) return { token: checked(readTokenFile(file), `bad token in --token-file '${file}'`), from: `--token-file '${file}'` };
  // Empty counts as unset, as `DOCKET_DASHBOARD_TOKEN= docket dashboard` means.
  const fromEnv = input.env[TOKEN_ENV];
  if (fromEnv === undefined || fromEnv === '') return { token: undefined, from: null };
  return { token: checked(fromEnv, `bad $${TOKEN_ENV}`), from: `$${TOKEN_ENV}` };
}

/** The token if it is one; the message never repeats a refused value, which may be a near-miss secret. */
function checked(token: string, what: string): string {
  if (!TOKEN.test(token)) throw new UsageError(`${what}: ${TOKEN_HINT}`);
  return token;
}

/** The file's text, trimmed: an editor's final newline is no part of the token. */
function readTokenFile(path: string): string {
  let fd: number | undefined;
  try {
    fd = openSync(path, 'r');
    const buffer = Buffer.alloc(MAX_TOKEN_FILE_BYTES + 1);
    let size = 0;
    for (let n = -1; n !== 0 && size < buffer.length; size += n) n = readSync(fd, buffer, size, buffer.length - size, null);
    return buffer.subarray(0, size).toString('utf8').trim();
  } catch (err) {
    throw new UsageError(`cannot read --token-file '${path}': ${codeOf(err) ?? String(err)}`);
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/** A Node system error's code (ENOENT, EADDRINUSE), by duck type: it may come from another realm. */
function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** What the listen errors an operator can cause mean, in the words of a fix. */
const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'the port is in use',
  EACCES: 'permission denied (a port below 1024 needs privileges)',
  EADDRNOTAVAIL: 'this machine has no such address',
  ENOTFOUND: 'no such host',
  EAI_AGAIN: 'the host name could not be resolved (DNS did not answer)',
};

/**
 * A failure to listen (a Node system error, which names its syscall: listen, getaddrinfo) as one
 * line naming the address; anything else (a docket error) as it is.
 */
function listenError(err: unknown, host: string, port: number): unknown {
  const code = codeOf(err);
  if (code === undefined || typeof (err as { syscall?: unknown }).syscall !== 'string') return err;
  const why = LISTEN_ERRORS[code] ?? (err as Error).message;
  return new RunError(`cannot listen on ${host.includes(':') ? `[${host}]` : host}:${port}: ${why}`);
}
