/**
 * The dashboard on a server of its own, for `docket dashboard` and for a quick look from a script.
 * It binds to 127.0.0.1 unless told otherwise: the dashboard can change tasks, so exposing it to
 * the network is a choice to make explicitly. On any other address it asks for a token even when
 * none was given: it generates one and returns the URL that carries it, as Jupyter does, unless
 * the caller opts out by name (`insecureNoToken`, for a proxy of its own in front). Its
 * connections are bounded (LIMITS), so slow or idle clients cannot hold it: Node's defaults let a
 * request take 300 s.
 */
import { createServer, type Server } from 'node:http';
import { parse } from '../../domain/options';
import type { Scheduler } from '../../types/scheduler';
import { dashboardHandler } from './handler';
import { serveOptions, type ParsedServeOptions } from './options';
import type { DashboardServer, ServeOptions } from '../../types/dashboard';
import { isLoopback, LOOPBACK_NAMES, newSecret } from './security';

/**
 * The server's bounds. A page or an action is a few KB each way, sent at once, so 10 s for a
 * request's headers and its whole body is generous; a client slower than that (or one that
 * trickles bytes to hold a connection) is answered 408 and cut off. Node checks these deadlines
 * every `connectionsCheckingInterval`, 30 s by default: 1 s keeps the cut near 10 s. A few tabs
 * use a few connections each; past 100 at once, new ones are closed as they come.
 */
export const LIMITS = {
  headersTimeout: 10_000,
  requestTimeout: 10_000,
  connectionsCheckingInterval: 1000,
  maxConnections: 100,
} as const;

/**
 * Serves the dashboard on a node:http server: `port` 0 (the default) takes a free port, `host`
 * defaults to '127.0.0.1'. On any other host without a `token` it generates one (see
 * `tokenGenerated`), unless `insecureNoToken` is set. Resolves once it listens. Throws a
 * ValidationError for a bad option.
 */
export async function serveDashboard(scheduler: Scheduler, options?: ServeOptions): Promise<DashboardServer> {
  const { port, host, insecureNoToken, onWarning, ...parsed } = parse(serveOptions, options ?? {}, 'options');
  const loopback = isLoopback(host);
  const access = accessOf(parsed, loopback, insecureNoToken);
  const rest = { ...parsed, token: access.token };
  // Bound to loopback, only this machine's names are valid Hosts: that defeats DNS rebinding.
  const hosts = loopback ? new Set([...LOOPBACK_NAMES, host.includes(':') ? `[${host}]` : host]) : undefined;
  const handler = dashboardHandler(scheduler, rest, { hosts });
  const { maxConnections, ...timeouts } = LIMITS;
  const server = createServer(timeouts, (req, res) => handler(req, res));
  server.maxConnections = maxConnections;
  await listen(server, port, host);
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  const name = host.includes(':') ? `[${host}]` : host;
  if (!loopback && rest.token === undefined) await warned(server, onWarning, noTokenWarning(name, bound));
  const query = rest.token === undefined ? '' : `?token=${encodeURIComponent(rest.token)}`;
  return {
    url: `http://${name}:${bound}${rest.basePath}/${query}`,
    ...(rest.token === undefined ? {} : { token: rest.token }),
    tokenGenerated: access.generated,
    close: () => stop(server),
  };
}

/**
 * The token the server asks for: the one given; on loopback without one, none (the Host check
 * keeps other sites out, and only this machine can connect); elsewhere a fresh one, in the
 * format the token option takes, unless the caller opted out by name.
 */
function accessOf(options: Pick<ParsedServeOptions, 'token'>, loopback: boolean, insecureNoToken: boolean): { token?: string; generated: boolean } {
  if (options.token !== undefined || loopback || insecureNoToken) return { token: options.token, generated: false };
  return { token: newSecret(), generated: true };
}

function noTokenWarning(name: string, port: number): string {
  return (
    `the docket dashboard on ${name}:${port} asks for no token: anyone who can reach that port ` +
    'can pause queues and cancel, re-drive and reschedule tasks. Keep it behind a proxy that authenticates every request.'
  );
}

/** Hands `message` to onWarning (or process.emitWarning); should that throw, the server stops rather than run unreported. */
async function warned(server: Server, onWarning: ((message: string) => void) | undefined, message: string): Promise<void> {
  try {
    if (onWarning) onWarning(message);
    else process.emitWarning(message, 'DocketWarning');
  } catch (err) {
    await stop(server);
    throw err;
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

function stop(server: Server): Promise<void> {
  return new Promise((resolve, reject) => {
    server.close((err) => (err ? reject(err) : resolve()));
    server.closeAllConnections();
  });
}
