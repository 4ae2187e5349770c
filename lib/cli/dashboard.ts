/**
 * `docket dashboard`: the web dashboard (lib/dashboard) on a local HTTP server, until Ctrl-C (or
 * io.signal) stops it. It binds 127.0.0.1 unless --host says otherwise: the dashboard can change
 * tasks, so it is not put on a network unasked. --token makes it ask for a token; the URL printed
 * carries it once, and the browser keeps it in a cookie.
 */
import { serveDashboard } from '../dashboard';
import { intArg } from './args';
import { positionals, UsageError, type Command } from './command';

/** Tokens the dashboard accepts (lib/dashboard/options.ts): long enough not to be guessed. */
const TOKEN = /^[\x21-\x7e]{16,512}$/;

export const dashboard: Command = {
  name: 'dashboard',
  usage: '',
  summary: 'serve the web dashboard on http://127.0.0.1 until Ctrl-C',
  details: 'Opens no browser: open the URL it prints. With --host 0.0.0.0 it listens on every address; set --token then.',
  flags: ['port', 'host', 'token'],
  prepare(input) {
    positionals('dashboard', input, []);
    const port = intArg('port', input.flags.port, 0, 65535, 8650);
    const host = input.flags.host ?? '127.0.0.1';
    const token = input.flags.token;
    if (token !== undefined && !TOKEN.test(token)) throw new UsageError('bad --token: expected 16 to 512 visible ASCII characters');
    return async (ctx) => {
      const scheduler = await ctx.connect();
      const server = await serveDashboard(scheduler, { port, host, token });
      const stopped = ctx.interrupted();
      ctx.out.emit({ url: server.url, host, port: Number(new URL(server.url).port) }, () => `docket dashboard: ${server.url}\nPress Ctrl-C to stop.\n`);
      await new Promise<void>((resolve) => (stopped.aborted ? resolve() : stopped.addEventListener('abort', () => resolve(), { once: true })));
      await server.close();
      return 0;
    };
  },
};
