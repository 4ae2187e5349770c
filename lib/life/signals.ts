/**
 * Opt-in graceful shutdown on SIGTERM and SIGINT (WorkOptions.handleSignals). One listener pair
 * serves every such worker of the process: on a signal all of them close (each waiting for its
 * in-flight handlers up to its shutdownTimeout), and only then is the signal raised again, so the
 * process ends as it would have without docket, unless the application listens for it too.
 */
interface Closable {
  close(): Promise<void>;
  readonly closed: Promise<void>;
}

const SIGNALS: NodeJS.Signals[] = ['SIGTERM', 'SIGINT'];
const workers = new Set<Closable>();

function onSignal(signal: NodeJS.Signals): void {
  for (const s of SIGNALS) process.removeListener(s, onSignal);
  void Promise.allSettled([...workers].map((w) => w.close())).then(() => {
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
  });
}

export function closeOnSignals(worker: Closable): void {
  if (workers.size === 0) for (const s of SIGNALS) process.on(s, onSignal);
  workers.add(worker);
  // A worker closed some other way no longer holds the process's signals.
  void worker.closed.then(() => {
    workers.delete(worker);
    if (workers.size === 0) for (const s of SIGNALS) process.removeListener(s, onSignal);
  });
}
