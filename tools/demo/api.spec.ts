import { DemoApi, DemoApiError, DemoUnreachableError } from './api';

type Answer = { status: number; body?: unknown; headers?: Record<string, string> } | Error;

/** A fetch that answers from a script and records each request with its body. */
function scripted(...answers: Answer[]) {
  const seen: { request: Request; body: string }[] = [];
  const fetch = async (request: Request) => {
    seen.push({ request, body: await request.text() });
    const answer = answers[Math.min(seen.length, answers.length) - 1];
    if (answer instanceof Error) throw answer;
    return new Response(JSON.stringify(answer.body ?? {}), {
      status: answer.status,
      headers: { 'content-type': 'application/json', ...answer.headers },
    });
  };
  return { seen, fetch };
}

const now = { 'retry-after': '0' };

describe('DemoApi', () => {
  it('retries a transient answer with the same Idempotency-Key and counts every request', async () => {
    const { seen, fetch } = scripted({ status: 503, headers: now }, { status: 201, body: { _id: 'b1' } });
    const api = new DemoApi({ url: 'http://127.0.0.1:8080/api/v1/', key: 'pim_k', fetch });
    expect(await api.post('/brands', { code: 'acme' })).toEqual({ _id: 'b1' });
    expect(api.requests).toBe(2);
    expect(seen[0].request.url).toBe('http://127.0.0.1:8080/api/v1/brands');
    expect(seen[0].request.headers.get('authorization')).toBe('Bearer pim_k');
    expect(seen[1].request.headers.get('idempotency-key')).toBe(seen[0].request.headers.get('idempotency-key'));
    expect(seen.map((s) => JSON.parse(s.body))).toEqual([{ code: 'acme' }, { code: 'acme' }]);
  });

  it('throws a DemoApiError with the error object of a refusal, not retried', async () => {
    const { seen, fetch } = scripted({ status: 409, body: { title: 'Conflict', message: 'code taken' } });
    const api = new DemoApi({ url: 'http://x/api/v1', key: 'k', fetch });
    const error = await api.post('/brands', { code: 'acme' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DemoApiError);
    expect((error as Error).message).toBe('POST /brands answered 409: code taken');
    expect(seen).toHaveLength(1);
  });

  it('says at once that the API cannot be reached when the first request gets no answer', async () => {
    const { seen, fetch } = scripted(new TypeError('fetch failed'), { status: 200 });
    const api = new DemoApi({ url: 'http://x/api/v1', key: 'k', fetch });
    await expect(api.get('/brands')).rejects.toBeInstanceOf(DemoUnreachableError);
    expect(seen).toHaveLength(1);
  });

  it('retries a dropped connection after the first request', async () => {
    const { fetch } = scripted({ status: 200, body: { ok: 1 } }, new TypeError('other side closed'), {
      status: 200,
      body: { ok: 2 },
    });
    const api = new DemoApi({ url: 'http://x/api/v1', key: 'k', fetch });
    await api.get('/brands');
    // One back-off (at most 500 ms) before the retry.
    expect(await api.get('/brands')).toEqual({ ok: 2 });
    expect(api.requests).toBe(3);
  });

  it('lists every page, 100 a page', async () => {
    const { seen, fetch } = scripted(
      { status: 200, body: { data: [{ n: 1 }], pages: 2 } },
      { status: 200, body: { data: [{ n: 2 }], pages: 2 } },
    );
    const api = new DemoApi({ url: 'http://x/api/v1', key: 'k', fetch });
    expect(await api.list('/webhooks', { enabled: 'true' })).toEqual([{ n: 1 }, { n: 2 }]);
    expect(seen.map((s) => new URL(s.request.url).search)).toEqual([
      '?enabled=true&limit=100&page=1',
      '?enabled=true&limit=100&page=2',
    ]);
  });
});
