import { createPimClient } from './index';

/** A fetch that records the request and answers with a canned JSON response. */
function recorder(status: number, body: unknown, headers: Record<string, string> = {}) {
  const seen: Request[] = [];
  const fetch = async (request: Request) => {
    seen.push(request);
    return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
  };
  return { seen, fetch };
}

describe('createPimClient', () => {
  it('sends the API key as a bearer token to the typed path under the base URL', async () => {
    const { seen, fetch } = recorder(200, { _id: '6740a1b2c3d4e5f601234567' }, { etag: '"3"' });
    const client = createPimClient({ baseUrl: 'https://pim.example.com/', apiKey: 'pim_abc', fetch });
    const { data, response } = await client.GET('/api/v1/webhooks/{id}', {
      params: { path: { id: '6740a1b2c3d4e5f601234567' } },
    });
    expect(seen[0].url).toBe('https://pim.example.com/api/v1/webhooks/6740a1b2c3d4e5f601234567');
    expect(seen[0].headers.get('authorization')).toBe('Bearer pim_abc');
    expect(data?._id).toBe('6740a1b2c3d4e5f601234567');
    expect(response.headers.get('etag')).toBe('"3"');
  });

  it('serializes typed list queries and request headers, and returns error objects as error', async () => {
    const { seen, fetch } = recorder(412, { code: 412, name: 'PreconditionFailedError' });
    const client = createPimClient({ baseUrl: 'https://pim.example.com', apiKey: 'k', fetch });
    const list = await client.GET('/api/v1/webhooks', {
      params: { query: { filter: { enabled: true, collection_in: 'brands,orders' }, limit: 2, sort: '-created_at' } },
    });
    // The filter object's keys are query parameters of their own (style form, exploded).
    expect(new URL(seen[0].url).search).toBe('?enabled=true&collection_in=brands%2Corders&limit=2&sort=-created_at');
    expect(list.error?.name).toBe('PreconditionFailedError');
    await client.PATCH('/api/v1/webhooks/{id}', {
      params: { path: { id: 'x' }, header: { 'if-match': '"1"' } },
      body: { enabled: false },
    });
    expect(seen[1].method).toBe('PATCH');
    expect(seen[1].headers.get('if-match')).toBe('"1"');
    expect(await seen[1].json()).toEqual({ enabled: false });
  });

  it('sends no Authorization header without a key', async () => {
    const { seen, fetch } = recorder(401, { code: 401 });
    await createPimClient({ baseUrl: 'https://pim.example.com', fetch }).GET('/api/v1/collections');
    expect(seen[0].headers.has('authorization')).toBe(false);
  });
});
