/**
 * The wait of a background loop between rounds: a timer that a wake-up (a NOTIFY, usually) cuts
 * short. A wake-up that comes while the loop is busy is kept, so the next wakeable wait returns at
 * once; `reset()` at the start of a round forgets those the round will see anyway.
 */
export class Wakeup {
  private woken = false;
  private sleeper: { wakeable: boolean; resolve: () => void } | null = null;

  /** Wakes the loop: now if it waits wakeably, else at its next wakeable wait. */
  wake(): void {
    this.woken = true;
    if (this.sleeper?.wakeable) this.sleeper.resolve();
  }

  /** Forgets the wake-ups so far (the round starting now sees what they announced). */
  reset(): void {
    this.woken = false;
  }

  /** Ends the current wait now, wakeable or not (the loop is stopping). */
  interrupt(): void {
    this.sleeper?.resolve();
  }

  /** Waits `ms`, or less when woken and `wakeable` (a back-off after failures is not). */
  sleep(ms: number, wakeable = true): Promise<void> {
    if (wakeable && this.woken) return Promise.resolve();
    return new Promise((resolve) => {
      const sleeper = {
        wakeable,
        resolve: () => {
          clearTimeout(timer);
          if (this.sleeper === sleeper) this.sleeper = null;
          resolve();
        },
      };
      const timer = setTimeout(sleeper.resolve, ms);
      this.sleeper = sleeper;
    });
  }
}
