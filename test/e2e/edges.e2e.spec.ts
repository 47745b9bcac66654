import { parse as parseDisposition } from 'content-disposition';
import { eventually, startE2E, type E2E } from './platform';

type Json = Record<string, unknown>;

const MAX_SKIP = 2_147_483_647;
const LISTS = ['products', 'brands', 'orders', 'exports', 'webhooks', 'users-groups'];

/** The name a download carries in `filename*` (RFC 6266), decoded by hand: UTF-8, percent-encoded. */
function extendedName(disposition: string): string | undefined {
  const m = /;\s*filename\*=UTF-8''([^;\s]+)/i.exec(disposition);
  return m ? decodeURIComponent(m[1]) : undefined;
}

/** Checks a download's Content-Disposition: an ASCII `filename` and the exact name in `filename*`. */
function expectAttachmentNamed(disposition: string | null, name: string): void {
  expect(disposition).toMatch(/^attachment; filename=/);
  expect(extendedName(disposition!)).toBe(name);
  const plain = /;\s*filename=("(?:[^"\\]|\\.)*"|[^;\s]+)/.exec(disposition!)?.[1] ?? '';
  expect(plain).toMatch(/^[\x20-\x7e]+$/);
  // What an RFC 6266 parser (here the one express uses) makes of it.
  expect(parseDisposition(disposition!).parameters.filename).toBe(name);
}

// Three findings of a hostile-user audit, through the whole platform over HTTP only: list offsets
// past what a List RPC carries (int32) answered 500; files named beyond Latin-1 could not be
// downloaded, and an upload's UTF-8 name was stored garbled; header values of webhooks and
// channels took CR, LF and NUL, and every delivery or publication then failed for hours.
describe('edges: deep offsets, file names in any script, header values', () => {
  let e2e: E2E;
  let base: string;
  let auth: Record<string, string>;

  beforeAll(async () => {
    // Nothing is sent outward: the webhook and channel URLs here are not ours.
    e2e = await startE2E('e2eedges', { WEBHOOKS_DELIVERY: 'false', PUBLISHER_SENDER: 'false' });
    base = e2e.platform.gatewayUrl.replace(/\/api\/v1$/, '');
    auth = { authorization: `Bearer ${e2e.adminKey}` };
  }, 180_000);

  afterAll(async () => {
    await e2e?.close();
  });

  describe('list offsets', () => {
    it.each(LISTS)('%s: answers a window that starts at the maximum, 2147483647 records in', async (list) => {
      const bySkip = await e2e.api('GET', `/api/v1/${list}?skip=${MAX_SKIP}`);
      expect(bySkip.status).toBe(200);
      expect(bySkip.json).toMatchObject({ skip: MAX_SKIP, page: 85_899_346, limit: 25, data: [], next: false });
      // skip wins over page: the deepest skip with limit 1 is page 2^31, one past an int32.
      const one = await e2e.api('GET', `/api/v1/${list}?skip=${MAX_SKIP}&limit=1`);
      expect(one.status).toBe(200);
      expect(one.json).toMatchObject({ skip: MAX_SKIP, page: 2 ** 31, data: [] });
      const byPage = await e2e.api('GET', `/api/v1/${list}?page=85899346`);
      expect(byPage.status).toBe(200);
      expect(byPage.json).toMatchObject({ page: 85_899_346, skip: 2_147_483_625, data: [] });
      const lastOfOne = await e2e.api('GET', `/api/v1/${list}?page=${2 ** 31}&limit=1`);
      expect(lastOfOne.status).toBe(200);
      expect(lastOfOne.json).toMatchObject({ skip: MAX_SKIP });
    });

    it.each(LISTS)(
      '%s: refuses a window past it with the error object, naming the maximum and _id paging',
      async (list) => {
        const cases: [string, string, string][] = [
          ['skip=2147483648', 'skip', 'skip may be at most 2147483647'],
          ['skip=4294967296', 'skip', 'skip may be at most 2147483647'],
          ['skip=9007199254740992', 'skip', 'skip may be at most 2147483647'],
          ['page=85899347', 'page', 'page may be at most 85899346 with limit 25'],
          ['page=99999999999', 'page', 'page may be at most 85899346 with limit 25'],
          [`page=${2 ** 31 + 1}&limit=1`, 'page', 'page may be at most 2147483648 with limit 1'],
          ['page=21474838&limit=100', 'page', 'page may be at most 21474837 with limit 100'],
        ];
        for (const [query, field, message] of cases) {
          const r = await e2e.api('GET', `/api/v1/${list}?${query}`);
          expect({ query, status: r.status }).toEqual({ query, status: 400 });
          expect(r.json).toMatchObject({
            code: 400,
            kind: 'validation',
            title: 'Invalid list query',
            details: [{ field, message: expect.stringContaining(message) }],
          });
          expect(r.json.message).toContain('2147483647');
          expect(r.json.solution).toMatch(/sort=_id with _id_gt=<the last _id of the previous page>/);
        }
      },
    );

    it('reads past any depth by _id, as the refusal says', async () => {
      const ids: string[] = [];
      for (const code of ['deep-a', 'deep-b', 'deep-c']) {
        const r = await e2e.api('POST', '/api/v1/brands', { code, name: { en: code } });
        expect(r.status).toBe(201);
        ids.push(r.json._id as string);
      }
      const seen: string[] = [];
      let after = '';
      for (;;) {
        const r = await e2e.api('GET', `/api/v1/brands?sort=_id&limit=1&code_in=deep-a,deep-b,deep-c${after}`);
        expect(r.status).toBe(200);
        const data = r.json.data as Json[];
        if (data.length === 0) break;
        seen.push(data[0]._id as string);
        after = `&_id_gt=${data[0]._id as string}`;
      }
      expect(seen).toEqual([...ids].sort());
    });
  });

  describe('file names beyond Latin-1', () => {
    it('completes an export named relatório–名前-🙂 and downloads it under that name (RFC 6266)', async () => {
      expect(
        (await e2e.api('POST', '/api/v1/products', { code: 'NAMED-1', name: { en: 'Mug' }, type: 'simple' })).status,
      ).toBe(201);
      const created = await e2e.api('POST', '/api/v1/exports', { file_type: 'csv', file_name: 'relatório–名前-🙂' });
      expect(created.status).toBe(201);
      expect(created.json.file_name).toBe('relatório–名前-🙂.csv');
      const id = created.json._id as string;
      let status = '';
      await eventually(async () => {
        const r = await e2e.api('GET', `/api/v1/exports/${id}`);
        status = r.json.status as string;
        return status === 'completed' || status === 'failed';
      }, 60_000);
      expect(status).toBe('completed');
      const res = await fetch(`${base}/api/v1/exports/${id}/download`, { headers: auth });
      expect(res.status).toBe(200);
      expectAttachmentNamed(res.headers.get('content-disposition'), 'relatório–名前-🙂.csv');
      expect(Buffer.from(await res.arrayBuffer()).toString('utf8')).toContain('NAMED-1');
      // The list finds it by its name too.
      const listed = await e2e.api('GET', `/api/v1/exports?_search=${encodeURIComponent('名前')}`);
      expect((listed.json.data as Json[]).map((e) => e._id)).toEqual([id]);
    }, 120_000);

    it('keeps an upload named lista–名.csv exactly, and names its error file lista–名-errors.csv', async () => {
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('SKU;Nome\nUP-1;Um\n;Sem código\n')]), 'lista–名.csv');
      const up = await fetch(`${base}/api/v1/imports`, { method: 'POST', headers: auth, body: form });
      const uploaded = (await up.json()) as Json;
      expect(up.status).toBe(201);
      expect(uploaded.file_name).toBe('lista–名.csv');
      const id = uploaded._id as string;
      expect((await e2e.api('GET', `/api/v1/imports/${id}`)).json.file_name).toBe('lista–名.csv');
      const patched = await e2e.api('PATCH', `/api/v1/imports/${id}`, { mapped_headers: { A: 'code', B: 'name.pt' } });
      expect(patched.status).toBe(200);
      expect((await e2e.api('POST', `/api/v1/imports/${id}/start`)).status).toBe(200);
      let done: Json = {};
      await eventually(async () => {
        done = (await e2e.api('GET', `/api/v1/imports/${id}`)).json;
        return ['completed', 'completed_with_errors', 'failed'].includes(done.status as string);
      }, 60_000);
      expect(done).toMatchObject({ status: 'completed_with_errors', file_name: 'lista–名.csv', errors_count: 1 });
      const res = await fetch(`${base}/api/v1/imports/${id}/errors`, { headers: auth });
      expect(res.status).toBe(200);
      expectAttachmentNamed(res.headers.get('content-disposition'), 'lista–名-errors.csv');
      expect(Buffer.from(await res.arrayBuffer()).toString('utf8')).toContain('Problems');
    }, 120_000);
  });

  describe('header values', () => {
    const named = "value of header 'Authorization' holds";
    // NUL is refused in any text of a JSON body before the body's schema is checked, at the same field.
    const BAD: [string, string, string][] = [
      ['CR', 'Bearer abc\rX-Injected: 1', `${named} a carriage return (CR)`],
      ['LF', 'Bearer abc\nX-Injected: 1', `${named} a line feed (LF)`],
      ['CRLF', 'Bearer abc\r\nX-Injected: 1', `${named} a carriage return (CR)`],
      ['NUL', 'Bearer abc\u0000', 'NUL'],
    ];
    const headers = (value: string) => [
      { key: 'X-Ok', value: 'fine' },
      { key: 'Authorization', value },
    ];
    const refusal = (field: string, message = named) => ({
      code: 400,
      kind: 'validation',
      details: [{ field, message: expect.stringContaining(message) }],
    });

    it.each(BAD)(
      'refuses a webhook whose header value holds %s, naming the header, and stores nothing',
      async (_what, value, message) => {
        const created = await e2e.api('POST', '/api/v1/webhooks', {
          collection: 'brands',
          url: 'https://hooks.example.com/brands',
          headers: headers(value),
        });
        expect(created.status).toBe(400);
        expect(created.json).toMatchObject(refusal('headers.1.value', message));
        expect((await e2e.api('GET', '/api/v1/webhooks?collection=brands')).json.total).toBe(0);
      },
    );

    it.each(BAD)(
      'refuses a channel whose header value holds %s, naming the header, and stores nothing',
      async (_what, value, message) => {
        const created = await e2e.api('POST', '/api/v1/channels', {
          code: 'edge_shop',
          name: 'Edge shop',
          endpoint: { url: 'https://shop.example.com/listings', headers: headers(value) },
        });
        expect(created.status).toBe(400);
        expect(created.json).toMatchObject(refusal('endpoint.headers.1.value', message));
        expect((await e2e.api('GET', '/api/v1/channels?code=edge_shop')).json.total).toBe(0);
      },
    );

    it('refuses such a value written onto an existing webhook or channel, which stay as they were', async () => {
      const hook = await e2e.api('POST', '/api/v1/webhooks', {
        collection: 'orders',
        url: 'https://hooks.example.com/orders',
        headers: headers('Bearer ok'),
      });
      expect(hook.status).toBe(201);
      const hookId = hook.json._id as string;
      const patched = await e2e.api('PATCH', `/api/v1/webhooks/${hookId}`, { headers: headers('a\r\nb') });
      expect(patched.status).toBe(400);
      expect(patched.json).toMatchObject(refusal('headers.1.value'));
      expect((await e2e.api('GET', `/api/v1/webhooks/${hookId}`)).json).toMatchObject({
        version: hook.json.version,
        headers: headers('Bearer ok'),
      });

      const channel = await e2e.api('POST', '/api/v1/channels', {
        code: 'edge_kept',
        name: 'Kept',
        endpoint: { url: 'https://shop.example.com/listings', headers: headers('Bearer ok-but-long-enough') },
      });
      expect(channel.status).toBe(201);
      const channelId = channel.json._id as string;
      const put = await e2e.api('PATCH', `/api/v1/channels/${channelId}`, {
        endpoint: { url: 'https://shop.example.com/listings', headers: headers('x\ny') },
      });
      expect(put.status).toBe(400);
      expect(put.json).toMatchObject(refusal('endpoint.headers.1.value'));
      expect((await e2e.api('GET', `/api/v1/channels/${channelId}`)).json.version).toBe(channel.json.version);
      // Tab and Latin-1 are what an HTTP client sends: taken.
      const latin = await e2e.api('PATCH', `/api/v1/webhooks/${hookId}`, { headers: headers('café\tÿ') });
      expect(latin.status).toBe(200);
    });
  });
});
