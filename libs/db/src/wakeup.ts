/**
 * The wait of a background loop between rounds: a timer that a wake-up (a NOTIFY, usually) cuts
 * short. A wake-up that comes while the loop is busy is kept, so the next wakeable wait returns at
 * once; `reset()` at the start of a round forgets those the round will see anyway. Several waits
 * may run at once (a loop that keeps two rounds in flight): a wake-up ends every wakeable one.
 */
export class Wakeup {
  private woken = false;
  private readonly sleepers = new Set<{ wakeable: boolean; resolve: () => void }>();

  /** Wakes the loop: every wakeable wait now, and the next wakeable wait if none is running. */
  wake(): void {
    this.woken = true;
    for (const sleeper of [...this.sleepers]) if (sleeper.wakeable) sleeper.resolve();
  }

  /** Forgets the wake-ups so far (the round starting now sees what they announced). */
  reset(): void {
    this.woken = false;
  }

  /** Ends every current wait now, wakeable or not (the loop is stopping). */
  interrupt(): void {
    for (const sleeper of [...this.sleepers]) sleeper.resolve();
  }

  /**
   * Waits `ms`, or less when woken and `wakeable` (a back-off after failures is not). With
   * `pending` false, a wake-up that came before the wait does not end it (only one during it does).
   */
  sleep(ms: number, wakeable = true, pending = true): Promise<void> {
    if (wakeable && pending && this.woken) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper = {
        wakeable,
        resolve: () => {
          clearTimeout(timer);
          this.sleepers.delete(sleeper);
          resolve();
        },
      };
      const timer = setTimeout(sleeper.resolve, ms);
      this.sleepers.add(sleeper);
    });
  }
}
