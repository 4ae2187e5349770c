/**
 * The worker loop's one way to wait: until a timer runs out or something wakes it (a slot frees, a
 * claim's reply comes, close()), whichever comes first. The loop decides to sleep in the same turn
 * as it reads its state, so a wake while nothing sleeps is dropped, not kept: there is nothing it
 * could have missed. Apart from the loop so that its many wake-ups read as one call each.
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
