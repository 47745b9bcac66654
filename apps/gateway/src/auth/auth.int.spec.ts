import { gatewayTestContext, type GatewayTestContext } from '../testing/gateway.context';

describe('gateway: API keys and scopes', () => {
  let ctx: GatewayTestContext;

  beforeAll(async () => {
    ctx = await gatewayTestContext();
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('answers 401 without a key, with a malformed key and with an unknown key', async () => {
    for (const authorization of [
      '',
      'Bearer nonsense',
      `Bearer pim_aaaaaaaaaaaa_${'A'.repeat(43)}`,
      'Basic dXNlcjpwYXNz',
    ]) {
      const r = await ctx.request('GET', '/api/v1/webhooks', undefined, { authorization });
      expect({ authorization, status: r.status, name: r.json.name }).toEqual({
        authorization,
        status: 401,
        name: 'AuthenticationError',
      });
    }
  });

  it("answers 503, never an unrestricted answer, when a user-bound key's groups cannot be read", async () => {
    // This gateway has no workflow app to ask: a key bound to a user cannot be served.
    const user = await ctx.newKey(['webhooks:read'], { user_id: '6740a1b2c3d4e5f601234567', user_name: 'Ana' });
    const r = await ctx.request('GET', '/api/v1/collections', undefined, { authorization: `Bearer ${user}` });
    expect(r.status).toBe(503);
    expect(r.json).toMatchObject({ code: 503, kind: 'unavailable' });
    expect(r.json.solution).toContain('WORKFLOW_GRPC_URL');
    // Keys bound to no user, and admin keys (even bound to a user), need no groups.
    const integration = await ctx.newKey(['webhooks:read']);
    const admin = await ctx.newKey(['admin'], { user_id: '6740a1b2c3d4e5f601234567', user_name: 'Ana' });
    for (const key of [integration, admin])
      expect(
        (await ctx.request('GET', '/api/v1/collections', undefined, { authorization: `Bearer ${key}` })).status,
      ).toBe(200);
  });

  it('lets a read key list but answers 403 naming the scope on a write', async () => {
    const reader = await ctx.newKey(['webhooks:read']);
    const list = await ctx.request('GET', '/api/v1/webhooks', undefined, { authorization: `Bearer ${reader}` });
    expect(list.status).toBe(503); // allowed through: the webhooks app is down in this test
    const put = await ctx.request(
      'PUT',
      '/api/v1/webhooks',
      { collection: 'products' },
      { authorization: `Bearer ${reader}` },
    );
    expect(put.status).toBe(403);
    expect(put.json).toMatchObject({ name: 'AuthorizationError', kind: 'authorization' });
    expect(put.json.message).toContain('webhooks:write');
    const keys = await ctx.request('GET', '/api/v1/api-keys', undefined, { authorization: `Bearer ${reader}` });
    expect(keys.status).toBe(403);
  });

  it('creates a key whose secret works at once, shows it once, and stops it on revoke', async () => {
    const created = await ctx.request('POST', '/api/v1/api-keys', {
      name: 'ERP',
      scopes: ['webhooks:write'],
      user_name: 'Ana',
    });
    expect(created.status).toBe(201);
    const token = created.json.key as string;
    expect(token).toMatch(/^pim_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/);
    expect(created.json).toMatchObject({ name: 'ERP', scopes: ['webhooks:write'], user_name: 'Ana', revoked: false });
    const id = created.json._id as string;
    const secret = token.slice('pim_'.length + 12 + 1); // base64url secrets may themselves contain '_'

    const got = await ctx.request('GET', `/api/v1/api-keys/${id}`);
    expect(got.json.key).toBeUndefined();
    expect(JSON.stringify(got.json)).not.toContain(secret);
    const stored = await ctx.ds.query('SELECT secret_hash FROM gateway.api_keys WHERE _id = $1', [id]);
    expect(stored[0].secret_hash).not.toContain(secret);

    expect(
      (await ctx.request('GET', '/api/v1/collections', undefined, { authorization: `Bearer ${token}` })).status,
    ).toBe(200);
    expect((await ctx.request('DELETE', `/api/v1/api-keys/${id}`)).status).toBe(204);
    const after = await ctx.request('GET', '/api/v1/collections', undefined, { authorization: `Bearer ${token}` });
    expect(after.status).toBe(401);
    expect(after.json.message).toContain('revoked');
    const listed = await ctx.request('GET', '/api/v1/api-keys?revoked=true');
    expect((listed.json.data as { _id: string }[]).map((k) => k._id)).toContain(id);
  });

  it('rotates a key: the new secret works, the old one stops', async () => {
    const created = await ctx.request('POST', '/api/v1/api-keys', { name: 'rotating', scopes: ['webhooks:read'] });
    const old = created.json.key as string;
    const rotated = await ctx.request('POST', `/api/v1/api-keys/${created.json._id}/rotate`);
    expect(rotated.status).toBe(200);
    const fresh = rotated.json.key as string;
    expect(fresh).not.toBe(old);
    expect(fresh.split('_')[1]).toBe(old.split('_')[1]);
    expect(
      (await ctx.request('GET', '/api/v1/collections', undefined, { authorization: `Bearer ${old}` })).status,
    ).toBe(401);
    expect(
      (await ctx.request('GET', '/api/v1/collections', undefined, { authorization: `Bearer ${fresh}` })).status,
    ).toBe(200);
  });

  it('refuses an expired key and a key with unknown scopes', async () => {
    const token = await ctx.newKey(['webhooks:read'], { expires_at: new Date(Date.now() + 2000).toISOString() });
    expect(
      (await ctx.request('GET', '/api/v1/collections', undefined, { authorization: `Bearer ${token}` })).status,
    ).toBe(200);
    await new Promise((r) => setTimeout(r, 2100));
    const r = await ctx.request('GET', '/api/v1/collections', undefined, { authorization: `Bearer ${token}` });
    expect(r.status).toBe(401);
    expect(r.json.message).toContain('expired');
    const bad = await ctx.request('POST', '/api/v1/api-keys', { name: 'x', scopes: ['nope:read', 'webhooks:delete'] });
    expect(bad.status).toBe(400);
    expect((bad.json.details as { field: string }[]).map((d) => d.field)).toEqual(['scopes.0', 'scopes.1']);
  });

  it('records when a key was last used', async () => {
    const created = await ctx.request('POST', '/api/v1/api-keys', { name: 'usage', scopes: ['webhooks:read'] });
    expect(created.json.last_used_at).toBeUndefined();
    await ctx.request('GET', '/api/v1/collections', undefined, { authorization: `Bearer ${created.json.key}` });
    let used: unknown;
    for (let i = 0; i < 200 && !used; i++) {
      await new Promise((r) => setTimeout(r, 50));
      used = (await ctx.request('GET', `/api/v1/api-keys/${created.json._id}`)).json.last_used_at;
    }
    expect(used).toEqual(expect.any(String));
  });

  it('a key revoked through one replica, or by hand in SQL, stops working on another replica that had it in memory', async () => {
    const other = await ctx.addReplica();
    const use = async (token: string) =>
      (await ctx.request('GET', '/api/v1/collections', undefined, { authorization: `Bearer ${token}` }, other)).status;
    const until401 = async (token: string): Promise<number> => {
      let status = await use(token);
      // The other replica hears of the change by NOTIFY (milliseconds); without it, it would trust its memory for a minute.
      for (let i = 0; i < 100 && status !== 401; i++) {
        await new Promise((r) => setTimeout(r, 20));
        status = await use(token);
      }
      return status;
    };

    const a = await ctx.request('POST', '/api/v1/api-keys', { name: 'cached A', scopes: ['webhooks:read'] });
    expect(await use(a.json.key as string)).toBe(200);
    expect(await use(a.json.key as string)).toBe(200);
    expect((await ctx.request('DELETE', `/api/v1/api-keys/${a.json._id}`)).status).toBe(204);
    expect(await until401(a.json.key as string)).toBe(401);

    const b = await ctx.request('POST', '/api/v1/api-keys', { name: 'cached B', scopes: ['webhooks:read'] });
    expect(await use(b.json.key as string)).toBe(200);
    await ctx.ds.query(`UPDATE gateway.api_keys SET revoked = true, revoked_at = now() WHERE _id = $1`, [b.json._id]);
    expect(await until401(b.json.key as string)).toBe(401);

    const c = await ctx.request('POST', '/api/v1/api-keys', { name: 'cached C', scopes: ['webhooks:read'] });
    expect(await use(c.json.key as string)).toBe(200);
    await ctx.ds.query(`UPDATE gateway.api_keys SET scopes = '{}' WHERE _id = $1`, [c.json._id]);
    let status = 200;
    for (let i = 0; i < 100 && status === 200; i++) {
      await new Promise((r) => setTimeout(r, 20));
      status = (
        await ctx.request('GET', '/api/v1/webhooks', undefined, { authorization: `Bearer ${c.json.key}` }, other)
      ).status;
    }
    expect(status).toBe(403);
  });
});
