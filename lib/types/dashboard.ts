/**
 * The web dashboard as callers mount it: createDashboard()'s and serveDashboard()'s options, the
 * handler the first returns and the server the second starts. The two functions are the facade's
 * (lib/surfaces/facade/dashboard.ts); the dashboard itself is lib/surfaces/dashboard/.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Options of {@link createDashboard} (and {@link serveDashboard}). */
export interface DashboardOptions {
  /**
   * When set, every request must carry it: `Authorization: Bearer <token>`, or `?token=<token>`
   * once, which sets an HttpOnly SameSite=Strict cookie and redirects to the URL without it. 16 to
   * 512 visible ASCII characters. Default: none.
   */
  token?: string;
  /**
   * Path the handler is mounted under, e.g. '/docket', for its links and API calls, so they work
   * behind a mount point. Default: ''.
   */
  basePath?: string;
  /** Most tasks shown per list, 1 to 100. Default: 20. */
  limit?: number;
}

/** Options of {@link serveDashboard}: the dashboard's, and where to listen. */
export interface ServeOptions extends DashboardOptions {
  /** Port to listen on; 0 (the default) takes a free one (`docket dashboard` listens on 8650). */
  port?: number;
  /**
   * Address to bind. Default '127.0.0.1': the dashboard can change tasks, so it is not exposed
   * unasked. On any other address it always asks for a token: without `token`, it generates one
   * (the returned `url` carries it), unless `insecureNoToken` says not to.
   */
  host?: string;
  /**
   * Serve without a token on a non-loopback `host` (default false), for a proxy of your own in
   * front that authenticates every request. Anyone who reaches the port can then pause queues and
   * cancel, re-drive and reschedule tasks: serveDashboard warns (`onWarning`) each time it starts
   * so. Cannot be combined with `token` (a ValidationError naming `options.insecureNoToken`); on
   * loopback it changes nothing.
   */
  insecureNoToken?: boolean;
  /** Receives the warning insecureNoToken brings. Default: process.emitWarning (type 'DocketWarning'). */
  onWarning?: (message: string) => void;
}

/** A request handler for Node's http server, Express or Fastify's middleware. */
export type DashboardHandler = (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void) => void;

/** A running dashboard server. */
export interface DashboardServer {
  /** The address to open: includes `?token=` when a token is set (the page then moves it to a cookie). */
  url: string;
  /** The token every request must carry (the one given, or the one generated); absent when it asks for none. */
  token?: string;
  /** True when no token was given for a non-loopback host, so serveDashboard generated `token` (and `url` carries it). */
  tokenGenerated: boolean;
  /** Stops the server, ending open connections (a browser's keep-alive would hold it open). */
  close(): Promise<void>;
}
