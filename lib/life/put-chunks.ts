/**
 * Splitting a put into script calls (chunks) that Redis runs in put order, while they overlap:
 * Redis runs one chunk while this process encodes the next and reads the answer to the one before.
 *
 * Put order is a promise (ordered groups and FIFO levels rely on it), and a pipeline keeps it only
 * while every call runs the first time it reaches Redis. A call answered NOSCRIPT (a new process,
 * a restart, a SCRIPT FLUSH) is sent again as EVAL (scripts.ts): any chunk sent behind it before
 * that would run first. So a chunk goes out only once the one before it has gone out, and, while
 * put's script is not known to be cached, only once that one was answered.
 */

/** Tasks per script call of a putMany: large enough to amortise the round trip, small enough not to stall Redis. */
export const CHUNK_ITEMS = 250;
/**
 * Tasks per script call of the single puts one turn gathered: fewer, so that Redis runs one call
 * while this process encodes the next, and its callers' next puts are made while Redis runs the
 * rest. One call for a turn's 100 puts made the two take turns, each idle while the other worked;
 * calls of 25 put 1.3-1.5x as many a second (docs/performance.md, put).
 */
export const GATHERED_ITEMS = 25;
/** A chunk also closes once its payloads pass this many bytes. */
export const CHUNK_BYTES = 4 * 1024 * 1024;

/** What a chunk needs of a prepared put: its queue (a call touches one queue's keys) and size. */
export interface Sized {
  queue: string;
  bytes: number;
}

/**
 * Sends one chunk's script call; calls `answered` as soon as that call has its answer (or
 * failed), before any further round trip of the same put.
 */
export type SendChunk<P, R> = (queue: string, chunk: P[], answered: () => void) => Promise<R[]>;

interface InFlight {
  /** Resolves once the chunk's call is written to the connection. */
  sent: Promise<void>;
  /** Resolves once the chunk's call was answered, or failed. */
  answered: Promise<void>;
}

/**
 * Splits `prepared` into calls whose results come back in order. Each call goes out on a turn of
 * the event loop of its own (node-redis writes a turn's commands at its end). `isCached` says
 * whether put's script is known to be in Redis's cache (Scripts.isCached); a chunk holds at most
 * `most` tasks.
 */
export function inChunks<P extends Sized, R>(prepared: P[], most: number, isCached: () => boolean, send: SendChunk<P, R>): Array<{ size: number; results: Promise<R[]> }> {
  const calls: Array<{ size: number; results: Promise<R[]>; go: () => void }> = [];
  let before: InFlight | null = null;
  let start = 0;
  while (start < prepared.length) {
    let end = start;
    let bytes = 0;
    const queue = prepared[start].queue;
    // A chunk holds one queue's tasks: a script call touches one queue's keys (one cluster slot).
    while (end < prepared.length && end - start < most && prepared[end].queue === queue && (bytes === 0 || bytes + prepared[end].bytes <= CHUNK_BYTES)) {
      bytes += prepared[end].bytes;
      end++;
    }
    const chunk = prepared.slice(start, end);
    const prev = before;
    let sent!: () => void;
    let answered!: () => void;
    const state: InFlight = { sent: new Promise((r) => (sent = r)), answered: new Promise((r) => (answered = r)) };
    let go!: () => void;
    const results = new Promise<void>((resolve) => (go = resolve)).then(async () => {
      if (prev) {
        await prev.sent;
        // Checked with no await between it and the send below.
        if (!isCached()) await prev.answered;
      }
      const reply = send(queue, chunk, answered);
      sent();
      return reply;
    });
    // A chunk that failed before its send still lets the ones behind it go.
    results.catch(() => undefined).then(() => (sent(), answered()));
    calls.push({ size: end - start, results, go });
    before = state;
    start = end;
  }
  void (async () => {
    for (let i = 0; i < calls.length; i++) {
      if (i > 0) await new Promise((resolve) => setImmediate(resolve));
      calls[i].go();
    }
  })();
  return calls;
}
