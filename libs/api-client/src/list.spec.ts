import { createPimClient, eachPage, listAll, listPages, PimApiError, type ListItem, type Schema } from './index';

/** A fetch serving `records` as the API pages a list (`page`, `limit`), recording each URL asked. */
function lister(records: { _id: string }[], opts: { pages?: number } = {}) {
  const urls: URL[] = [];
  const fetch = async (request: Request) => {
    const url = new URL(request.url);
    urls.push(url);
    const page = Number(url.searchParams.get('page') ?? 1);
    const limit = Number(url.searchParams.get('limit') ?? 25);
    const data = records.slice((page - 1) * limit, page * limit);
    const body = { data, total: records.length, page, limit, pages: opts.pages ?? Math.ceil(records.length / limit) };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return { urls, fetch };
}

const records = (n: number) => Array.from({ length: n }, (_, i) => ({ _id: `id-${i + 1}` }));

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

describe('listAll', () => {
  it('yields every record through three pages, the query kept on each page', async () => {
    const { urls, fetch } = lister(records(250));
    const client = createPimClient({ baseUrl: 'https://pim.example.com', fetch });
    const products = await collect(listAll(client, '/api/v1/products', { params: { query: { sort: '_id' } } }));
    expect(products.map((p) => p._id)).toEqual(records(250).map((r) => r._id));
    expect(urls.map((u) => u.search)).toEqual([
      '?sort=_id&page=1&limit=100',
      '?sort=_id&page=2&limit=100',
      '?sort=_id&page=3&limit=100',
    ]);
  });

  it('is typed by the list path: products yield ProductListItem', async () => {
    const { fetch } = lister(records(1));
    const client = createPimClient({ baseUrl: 'https://pim.example.com', fetch });
    const item: ListItem<'/api/v1/products'> = (await collect(listAll(client, '/api/v1/products')))[0];
    const typed: Schema<'ProductListItem'> = item;
    expect(typed._id).toBe('id-1');
  });

  it('stops on an empty page even when `pages` promised more (records deleted meanwhile)', async () => {
    const { urls, fetch } = lister(records(3), { pages: 5 });
    const client = createPimClient({ baseUrl: 'https://pim.example.com', fetch });
    const all = await collect(listAll(client, '/api/v1/webhooks', { params: { query: { limit: 2 } } }));
    expect(all).toHaveLength(3);
    expect(urls).toHaveLength(3);
  });

  it('asks one page of an empty list', async () => {
    const { urls, fetch } = lister([]);
    const client = createPimClient({ baseUrl: 'https://pim.example.com', fetch });
    expect(await collect(listAll(client, '/api/v1/brands'))).toEqual([]);
    expect(urls).toHaveLength(1);
  });

  it('fills the path parameters of a nested list', async () => {
    const { urls, fetch } = lister(records(1));
    const client = createPimClient({ baseUrl: 'https://pim.example.com', fetch });
    await collect(listAll(client, '/api/v1/webhooks/{id}/deliveries', { params: { path: { id: 'w1' } } }));
    expect(urls[0].pathname).toBe('/api/v1/webhooks/w1/deliveries');
  });

  it('throws a PimApiError with the error object when a page is refused', async () => {
    const fetch = async () =>
      new Response(JSON.stringify({ code: 400, title: 'Bad Request', message: 'unknown field nope' }), {
        status: 400,
        headers: { 'content-type': 'application/json' },
      });
    const client = createPimClient({ baseUrl: 'https://pim.example.com', fetch });
    const error = await collect(listAll(client, '/api/v1/products')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PimApiError);
    expect(error).toMatchObject({ status: 400, body: { message: 'unknown field nope' } });
  });
});

describe('listPages', () => {
  it('yields each page with its envelope, from the page asked', async () => {
    const { fetch } = lister(records(5));
    const client = createPimClient({ baseUrl: 'https://pim.example.com', fetch });
    const pages = await collect(listPages(client, '/api/v1/webhooks', { params: { query: { limit: 2, page: 2 } } }));
    expect(pages.map((p) => [p.page, p.data.length, p.total])).toEqual([
      [2, 2, 5],
      [3, 1, 5],
    ]);
  });
});

describe('eachPage', () => {
  it('follows `pages` over any transport', async () => {
    const asked: number[] = [];
    const pages = await collect(eachPage(async (page) => (asked.push(page), { data: [page], pages: 3 })));
    expect(pages.map((p) => p.data)).toEqual([[1], [2], [3]]);
    expect(asked).toEqual([1, 2, 3]);
  });
});
