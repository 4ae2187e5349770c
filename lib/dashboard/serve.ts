/**
 * The dashboard on a server of its own, for `docket dashboard` and for a quick look from a script.
 * It binds to 127.0.0.1 unless told otherwise: the dashboard can change tasks, so exposing it to
 * the network is a choice to make explicitly (with a token). Its connections are bounded
 * (LIMITS), so slow or idle clients cannot hold it: Node's defaults let a request take 300 s.
 */
import { createServer, type Server } from 'node:http';
import { parse } from '../options';
import type { Scheduler } from '../scheduler';
import { dashboardHandler } from './handler';
import { serveOptions, type ServeOptions } from './options';
import { isLoopback, LOOPBACK_NAMES } from './security';

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

/** A running dashboard server. */
export interface DashboardServer {
  /** The address to open: includes `?token=` when a token is set (the page then moves it to a cookie). */
  url: string;
  /** Stops the server, ending open connections (a browser's keep-alive would hold it open). */
  close(): Promise<void>;
}

/**
 * Serves the dashboard on a node:http server: `port` 0 (the default) takes a free port, `host`
 * defaults to '127.0.0.1'. Resolves once it listens. Throws a ValidationError for a bad option.
 */
export async function serveDashboard(scheduler: Scheduler, options?: ServeOptions): Promise<DashboardServer> {
  const { port, host, ...rest } = parse(serveOptions, options ?? {}, 'options');
  // Bound to loopback, only this machine's names are valid Hosts: that defeats DNS rebinding.
  const hosts = isLoopback(host) ? new Set([...LOOPBACK_NAMES, host.includes(':') ? `[${host}]` : host]) : undefined;
  const handler = dashboardHandler(scheduler, rest, { hosts });
  const { maxConnections, ...timeouts } = LIMITS;
  const server = createServer(timeouts, (req, res) => handler(req, res));
  server.maxConnections = maxConnections;
  await listen(server, port, host);
  const address = server.address();
  const bound = typeof address === 'object' && address !== null ? address.port : port;
  const name = host.includes(':') ? `[${host}]` : host;
  const query = rest.token === undefined ? '' : `?token=${encodeURIComponent(rest.token)}`;
  return {
    url: `http://${name}:${bound}${rest.basePath}/${query}`,
    close: () => stop(server),
  };
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
