/**
 * Retry back-off: how long a failed task waits before its next delivery.
 */

/** First retry waits about this long. */
export const BACKOFF_BASE_MS = 1000;
/** No retry waits longer than this. */
export const BACKOFF_CAP_MS = 10 * 60 * 1000;

/**
 * Exponential back-off with jitter, capped: attempt 1 waits 0.5–1 s, attempt 2 1–2 s, attempt 3
 * 2–4 s, … up to 10 minutes. The jitter spreads out tasks that failed together (say, while a
 * downstream service was down), so their retries do not arrive together either.
 */
export function defaultBackoff(attempt: number): number {
  const ceiling = Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}
