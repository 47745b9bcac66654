import { eventually, startE2E, type E2E } from './platform';

/** A read that needs each app: the gateway alone, or the gateway and the app behind the route. */
const READS: Record<string, string> = {
  gateway: '/api/v1/collections',
  catalog: '/api/v1/products?limit=1',
  workflow: '/api/v1/users-groups?limit=1',
  orders: '/api/v1/orders?limit=1',
  'io-jobs': '/api/v1/exports?limit=1',
  publisher: '/api/v1/channels?limit=1',
  webhooks: '/api/v1/webhooks?limit=1',
};

// `npm start`'s supervision with the real apps: each app SIGKILLed once comes back by itself, and
// the API answers again within 15 s.
describe('every app killed once under supervision', () => {
  let e2e: E2E;

  beforeAll(async () => {
    e2e = await startE2E('e2esupervision', {}, { restart: 'on-crash' });
  }, 180_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it('names a read for every app', () => {
    expect(Object.keys(READS).sort()).toEqual(Object.keys(e2e.platform.ports).sort());
  });

  it.each(Object.keys(READS))('%s comes back by itself and the API answers within 15 s', async (app) => {
    expect((await e2e.api('GET', READS[app])).status).toBe(200);
    e2e.platform.kill(app, 'SIGKILL');
    const killedAt = Date.now();
    await eventually(async () => e2e.logs.includes(`[start] ${app} exited (signal SIGKILL)`), 5_000);
    let last = 'no answer';
    for (;;) {
      const answer = await e2e
        .api('GET', READS[app])
        .catch((err: Error) => ({ status: 0, json: { message: err.message } }));
      if (answer.status === 200) break;
      last = `${answer.status} ${JSON.stringify(answer.json.message)}`;
      if (Date.now() - killedAt > 15_000) throw new Error(`${app} did not come back within 15 s (last: ${last})`);
      await new Promise((r) => setTimeout(r, 200));
    }
    // Restarted by supervision (once, unless its first start after the kill failed on its own, e.g.
    // Postgres refusing connections on a crowded machine: then again after the backoff).
    expect(e2e.platform.restarts()[app]).toBeGreaterThanOrEqual(1);
    expect(e2e.logs.filter((l) => l.startsWith(`[start] ${app} exited`)).length).toBe(e2e.platform.restarts()[app]);
  });
});
