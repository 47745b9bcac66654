import { Wakeup } from './wakeup';

describe('Wakeup', () => {
  it('cuts a wakeable wait short, keeps a wake-up that came while busy, and forgets it on reset', async () => {
    const w = new Wakeup();
    const started = Date.now();
    const waiting = w.sleep(60_000);
    w.wake();
    await waiting;
    expect(Date.now() - started).toBeLessThan(30_000);

    w.wake(); // while "busy": the next wakeable wait returns at once
    await w.sleep(60_000);

    w.reset();
    let done = false;
    const again = w.sleep(20).then(() => (done = true));
    expect(done).toBe(false);
    await again;
    expect(done).toBe(true);
  });

  it('does not cut a back-off short on a wake-up, but interrupt ends any wait', async () => {
    const w = new Wakeup();
    let ended = false;
    const backoff = w.sleep(60_000, false).then(() => (ended = true));
    w.wake();
    await Promise.resolve();
    expect(ended).toBe(false);
    w.interrupt();
    await backoff;
    expect(ended).toBe(true);
  });
});
