import { createPimClient, retryingFetch, waitAsked, type RetryEvent } from './index';

type Answer = number | { status: number; headers?: Record<string, string> } | Error;

/** A fetch that answers from a script (a status, a status with headers, or an Error to throw) and records each request with its body. */
function scripted(...answers: Answer[]) {
  const seen: { request: Request; body: string }[] = [];
  const fetch = async (request: Request) => {
    seen.push({ request, body: await request.text() });
    const answer = answers[Math.min(seen.length, answers.length) - 1];
    if (answer instanceof Error) throw answer;
    const { status, headers = {} } = typeof answer === 'number' ? { status: answer } : answer;
    return new Response(JSON.stringify({ code: status }), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });
  };
  return { seen, fetch };
}

/** A sleep that records the waits and returns at once. */
function clock() {
  const waits: number[] = [];
  return { waits, sleep: async (ms: number) => void waits.push(ms) };
}

const post = (headers: Record<string, string> = {}) =>
  new Request('https://pim.example.com/api/v1/webhooks', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ collection: 'orders', url: 'https://example.com/o' }),
  });

describe('retryingFetch', () => {
  it('adds one Idempotency-Key to a POST and sends it, with the body intact, on every retry', async () => {
    const { seen, fetch } = scripted(500, 502, 201);
    const { sleep } = clock();
    const send = retryingFetch(fetch, { sleep });
    const response = await send(post());
    expect(response.status).toBe(201);
    expect(seen).toHaveLength(3);
    const keys = seen.map((s) => s.request.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(keys).size).toBe(1);
    for (const s of seen) expect(JSON.parse(s.body)).toEqual({ collection: 'orders', url: 'https://example.com/o' });
    expect(send.requests).toBe(3);
  });

  it("keeps the caller's own Idempotency-Key", async () => {
    const { seen, fetch } = scripted(503, 201);
    await retryingFetch(fetch, { sleep: clock().sleep })(post({ 'Idempotency-Key': 'order-42' }));
    expect(seen.map((s) => s.request.headers.get('idempotency-key'))).toEqual(['order-42', 'order-42']);
  });

  it('adds no key to other methods, nor when it will not retry', async () => {
    const { seen, fetch } = scripted(200);
    await retryingFetch(fetch)(new Request('https://pim.example.com/api/v1/webhooks'));
    await retryingFetch(fetch, { attempts: 1 })(post());
    expect(seen.map((s) => s.request.headers.has('idempotency-key'))).toEqual([false, false]);
  });

  it('waits what Retry-After asks, in seconds or as an HTTP date, else a 429 RateLimit-Reset', async () => {
    const inFive = new Date(Date.now() + 5_000).toUTCString();
    const { fetch } = scripted(
      { status: 429, headers: { 'retry-after': '3', 'ratelimit-reset': '40' } },
      { status: 503, headers: { 'retry-after': inFive } },
      { status: 429, headers: { 'ratelimit-reset': '7' } },
      200,
    );
    const { waits, sleep } = clock();
    const response = await retryingFetch(fetch, { attempts: 4, sleep })(post());
    expect(response.status).toBe(200);
    expect(waits[0]).toBe(3_000);
    expect(waits[1]).toBeGreaterThan(3_000);
    expect(waits[1]).toBeLessThanOrEqual(5_000);
    expect(waits[2]).toBe(7_000);
  });

  it('caps every wait, and backs off doubling with jitter when nothing is asked', async () => {
    const { fetch } = scripted({ status: 503, headers: { 'retry-after': '3600' } }, 500, 504, 200);
    const { waits, sleep } = clock();
    await retryingFetch(fetch, { sleep, maxDelayMs: 30_000, baseDelayMs: 1_000 })(post());
    expect(waits[0]).toBe(30_000);
    expect(waits[1]).toBeGreaterThanOrEqual(1_000);
    expect(waits[1]).toBeLessThanOrEqual(2_000);
    expect(waits[2]).toBeGreaterThanOrEqual(2_000);
    expect(waits[2]).toBeLessThanOrEqual(4_000);
  });

  it.each([400, 401, 403, 404, 409, 412, 422])('never retries a %i', async (status) => {
    const { seen, fetch } = scripted(status, 200);
    const response = await retryingFetch(fetch, { sleep: clock().sleep })(post());
    expect(response.status).toBe(status);
    expect(seen).toHaveLength(1);
  });

  it('retries a dropped connection with the same key', async () => {
    const { seen, fetch } = scripted(new TypeError('fetch failed'), 201);
    const response = await retryingFetch(fetch, { sleep: clock().sleep })(post());
    expect(response.status).toBe(201);
    expect(seen[1].request.headers.get('idempotency-key')).toBe(seen[0].request.headers.get('idempotency-key'));
  });

  it('stops after `attempts` requests and returns the last answer', async () => {
    const { seen, fetch } = scripted(500, 502, 503);
    const { waits, sleep } = clock();
    const response = await retryingFetch(fetch, { attempts: 3, sleep })(post());
    expect(response.status).toBe(503);
    expect(await response.json()).toEqual({ code: 503 });
    expect(seen).toHaveLength(3);
    expect(waits).toHaveLength(2);
  });

  it('stops after `attempts` requests and throws the last error', async () => {
    const { seen, fetch } = scripted(503, new TypeError('fetch failed'));
    await expect(retryingFetch(fetch, { attempts: 2, sleep: clock().sleep })(post())).rejects.toThrow('fetch failed');
    expect(seen).toHaveLength(2);
  });

  it('gives up when onRetry says so', async () => {
    const { seen, fetch } = scripted(new TypeError('fetch failed'), 200);
    const events: RetryEvent[] = [];
    const send = retryingFetch(fetch, { sleep: clock().sleep, onRetry: (e) => (events.push(e), false) });
    await expect(send(post())).rejects.toThrow('fetch failed');
    expect(seen).toHaveLength(1);
    expect(events[0]).toMatchObject({ attempt: 1, error: expect.any(TypeError) });
  });

  it('retries a multipart upload (not replayed by its key) on a 429 only', async () => {
    const upload = () => {
      const form = new FormData();
      form.set('file', new Blob(['code;name\nA-1;Chair\n']), 'products.csv');
      return new Request('https://pim.example.com/api/v1/imports', { method: 'POST', body: form });
    };
    const dropped = scripted(500, 201);
    expect((await retryingFetch(dropped.fetch, { sleep: clock().sleep })(upload())).status).toBe(500);
    const limited = scripted({ status: 429, headers: { 'retry-after': '1' } }, 201);
    expect((await retryingFetch(limited.fetch, { sleep: clock().sleep })(upload())).status).toBe(201);
    expect(limited.seen[1].body).toContain('A-1;Chair');
  });

  it('does not retry an aborted request', async () => {
    const controller = new AbortController();
    const { seen, fetch } = scripted(new Error('aborted'));
    const request = new Request('https://pim.example.com/api/v1/webhooks', { signal: controller.signal });
    controller.abort();
    await expect(retryingFetch(fetch, { sleep: clock().sleep })(request)).rejects.toThrow();
    expect(seen).toHaveLength(0);
  });
});

describe('waitAsked', () => {
  it('ignores RateLimit-Reset on a 5xx (every answer carries it)', () => {
    expect(waitAsked(new Response(null, { status: 500, headers: { 'ratelimit-reset': '50' } }))).toBeUndefined();
  });
});

describe('createPimClient retries', () => {
  it('retries through the typed client, around the caller’s fetch', async () => {
    const { seen, fetch } = scripted({ status: 503, headers: { 'retry-after': '0' } }, 201);
    const client = createPimClient({ baseUrl: 'https://pim.example.com', apiKey: 'k', fetch });
    const { response } = await client.POST('/api/v1/webhooks', {
      body: { collection: 'orders', url: 'https://example.com/o' },
    });
    expect(response.status).toBe(201);
    expect(seen).toHaveLength(2);
    expect(seen[1].request.headers.get('authorization')).toBe('Bearer k');
    expect(seen[1].request.headers.get('idempotency-key')).toBe(seen[0].request.headers.get('idempotency-key'));
  });

  it('sends once with retries: false', async () => {
    const { seen, fetch } = scripted(503, 201);
    const client = createPimClient({ baseUrl: 'https://pim.example.com', fetch, retries: false });
    const { response } = await client.GET('/api/v1/webhooks');
    expect(response.status).toBe(503);
    expect(seen).toHaveLength(1);
  });
});
