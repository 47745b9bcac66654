import type { AddressInfo } from 'node:net';
import express from 'express';
import { z } from 'zod';
import { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { createLogger } from '@pim/logging';
import { Api } from './route';
import { errorHandler } from './errors';

// Api.route checks the query parameters it documents before the handler runs.
describe('Api.route query parameters', () => {
  const seen: unknown[] = [];
  let base: string;
  let close: () => void;

  beforeAll(async () => {
    const api = new Api(new OpenAPIRegistry(), '/api/v1');
    api.route({
      method: 'post',
      path: '/things/recover',
      operationId: 'recoverThings',
      scope: 'authenticated',
      summary: 'Recover things since a date',
      tags: ['Things'],
      query: z.object({
        since: z
          .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be one date') })
          .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date such as 2026-11-22'),
        limit: z.coerce.number().int().min(1).max(10).optional(),
      }),
      responses: { 200: { description: 'Recovered' } },
      handler: async ({ query }) => {
        seen.push(query);
        return { status: 200, body: { ok: true } };
      },
    });
    const web = express();
    web.set('query parser', 'simple');
    web.use((_req, res, next) => {
      res.locals.principal = { keyId: 'k', prefix: 'p', scopes: ['admin'], user_name: 'tester' };
      next();
    });
    web.use('/api/v1', api.router);
    web.use(errorHandler(createLogger({ service: 'test', level: 'silent' })));
    const server = web.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`;
    close = () => server.close();
  });

  afterAll(() => close?.());

  it('refuses a missing or malformed documented parameter with the error object naming it', async () => {
    const missing = await fetch(`${base}/things/recover`, { method: 'POST' });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({
      kind: 'validation',
      title: 'Invalid query parameters',
      details: [{ field: 'since', message: 'is required' }],
    });
    const bad = await fetch(`${base}/things/recover?since=yesterday&limit=50`, { method: 'POST' });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { details: { field: string }[] };
    expect(body.details.map((d) => d.field).sort()).toEqual(['limit', 'since']);
    expect(seen).toEqual([]);
  });

  it('passes the parsed parameters to the handler', async () => {
    const ok = await fetch(`${base}/things/recover?since=2026-11-22&limit=3`, { method: 'POST' });
    expect(ok.status).toBe(200);
    expect(seen).toEqual([{ since: '2026-11-22', limit: 3 }]);
  });
});
