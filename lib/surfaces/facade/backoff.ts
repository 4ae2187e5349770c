/** The default retry back-off, as the package exports it (lib/domain/backoff.ts computes it). */
import { defaultBackoff as backoff } from '../../domain/backoff';

/**
 * Exponential back-off with jitter, capped: attempt 1 waits 0.5–1 s, attempt 2 1–2 s, attempt 3
 * 2–4 s, … up to 10 minutes. The jitter spreads out tasks that failed together (say, while a
 * downstream service was down), so their retries do not arrive together either.
 */
export function defaultBackoff(attempt: number): number {
  return backoff(attempt);
}
