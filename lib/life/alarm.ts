/**
 * The worker loop's one way to wait: until a timer runs out or something wakes it (a slot frees, a
 * claim's reply comes, close()), whichever comes first. The loop decides to sleep in the same turn
 * as it reads its state, so a wake while nothing sleeps is dropped, not kept: there is nothing it
 * could have missed. Apart from the loop so that its many wake-ups read as one call each.
 * notBefore(), the timer an idle wait arms for a due time, lives here too: a timer that is never early.
 */
export class Alarm {
  private wakeUp: (() => void) | null = null;

  /** Resolves after `ms` (Infinity: only at wake()), or sooner at wake(). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = Number.isFinite(ms) ? setTimeout(() => this.wake(), ms) : null;
      this.wakeUp = () => {
        if (timer) clearTimeout(timer);
        this.wakeUp = null;
        resolve();
      };
    });
  }

  wake(): void {
    this.wakeUp?.();
  }
}

/**
 * Calls `fire` once `ms` have passed by performance.now(), never sooner. A bare setTimeout may fire
 * a millisecond or more early: Node counts from the event loop's cached time, which lags by what the
 * current turn has run so far, and rounds to whole milliseconds. A claim sent that early finds the
 * task not due, or the rate window not open, and costs one more round trip.
 */
export function notBefore(ms: number, fire: () => void): { clear: () => void } {
  const end = performance.now() + ms;
  let timer: NodeJS.Timeout;
  const check = (): void => {
    const left = end - performance.now();
    if (left > 0) timer = setTimeout(check, Math.ceil(left));
    else fire();
  };
  timer = setTimeout(check, Math.ceil(ms));
  return { clear: () => clearTimeout(timer) };
}
