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

describe('Wakeup with several waits at once', () => {
  it('ends every wakeable wait on a wake-up and every wait on interrupt', async () => {
    const w = new Wakeup();
    const ended: string[] = [];
    const a = w.sleep(60_000).then(() => ended.push('a'));
    const b = w.sleep(60_000).then(() => ended.push('b'));
    const backoff = w.sleep(60_000, false).then(() => ended.push('backoff'));
    w.wake();
    await Promise.all([a, b]);
    expect(ended.sort()).toEqual(['a', 'b']);
    w.interrupt();
    await backoff;
    expect(ended).toContain('backoff');
  });

  it('with pending false, waits for a wake-up during the wait, not one before it', async () => {
    const w = new Wakeup();
    w.wake();
    let done = false;
    const waiting = w.sleep(60_000, true, false).then(() => (done = true));
    await Promise.resolve();
    expect(done).toBe(false);
    w.wake();
    await waiting;
    expect(done).toBe(true);
  });
});
