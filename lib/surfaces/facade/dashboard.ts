/**
 * The dashboard's entry points, which load its modules on the first call: a service that never
 * mounts the dashboard does not pay for loading it when it requires docket. Each has the type and
 * the behaviour of the function it stands for (lib/surfaces/dashboard/handler.ts and serve.ts say what they do).
 */
import type * as Dashboard from '../dashboard';

function dashboard(): typeof Dashboard {
  return require('../dashboard') as typeof Dashboard;
}

/** A `(req, res, next)` handler serving the dashboard (docs/operations.md#web-dashboard). */
export const createDashboard: typeof Dashboard.createDashboard = (scheduler, options) => dashboard().createDashboard(scheduler, options);

/** The dashboard on an HTTP server of its own (docs/operations.md#web-dashboard). */
export const serveDashboard: typeof Dashboard.serveDashboard = (scheduler, options) => dashboard().serveDashboard(scheduler, options);
