import type { Express } from 'express';
import { PUBLIC_PATHS } from '../app';
import type { Api } from './route';
import { gatewayTestContext, type GatewayTestContext } from '../testing/gateway.context';

interface Layer {
  route?: { path: string; methods: Record<string, boolean> };
  name?: string;
  handle?: { stack?: Layer[] };
}

/** Every (method, path) the express app answers, found by walking its router stacks. */
function registeredRoutes(stack: Layer[], prefix: string): { method: string; path: string }[] {
  return stack.flatMap((layer) => {
    if (layer.route)
      return Object.keys(layer.route.methods).map((method) => ({ method, path: `${prefix}${layer.route!.path}` }));
    if (layer.name === 'router' && layer.handle?.stack) return registeredRoutes(layer.handle.stack, '/api/v1');
    return [];
  });
}

// Walks every route the gateway registers: each /api/v1 route must have been declared with a
// scope (api.route), and answer 401 without a key; anything else must be on the public list.
describe('route census', () => {
  let ctx: GatewayTestContext;
  let app: Express & { api: Api };

  beforeAll(async () => {
    ctx = await gatewayTestContext();
    app = ctx.app as Express & { api: Api };
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('finds no route without a declared scope, and none open without a key', async () => {
    const routes = registeredRoutes((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
    expect(routes.length).toBeGreaterThan(5);
    const declared = new Set(app.api.declared.map((d) => `${d.method} ${d.path}`));
    const undeclared = routes.filter((r) => !declared.has(`${r.method} ${r.path}`) && !PUBLIC_PATHS.includes(r.path));
    expect(undeclared).toEqual([]);
    for (const d of app.api.declared) {
      expect(d.scope).toMatch(/^(admin|authenticated|[a-z_]+:(read|write))$/);
      const r = await ctx.request(
        d.method.toUpperCase(),
        d.path.replace(/:[a-z_]+/gi, '6740a1b2c3d4e5f601234567'),
        d.method === 'get' || d.method === 'delete' ? undefined : {},
        { authorization: '' },
      );
      expect({ route: `${d.method} ${d.path}`, status: r.status }).toEqual({
        route: `${d.method} ${d.path}`,
        status: 401,
      });
    }
  });

  it('refuses a key without the scope of the route before reading its body: 403, not the 400 or 415 the body would get', async () => {
    const key = await ctx.newKey(['orders:read']);
    const refused: string[] = [];
    for (const d of app.api.declared.filter((x) => x.scope !== 'authenticated' && x.scope !== 'orders:read')) {
      const path = d.path.replace(/:[a-z_]+/gi, '6740a1b2c3d4e5f601234567');
      // A body that is neither JSON nor a multipart upload.
      const r = await ctx.request(d.method.toUpperCase(), path, d.method === 'get' ? undefined : '{not json', {
        authorization: `Bearer ${key}`,
        ...(d.method === 'get' ? {} : { 'content-type': 'text/plain' }),
      });
      if (r.status !== 403) refused.push(`${d.method} ${d.path}: ${r.status}`);
      else expect(r.json).toMatchObject({ code: 403, kind: 'authorization' });
    }
    expect(refused).toEqual([]);
  });

  it('would notice a route added beside the declarations', async () => {
    app.api.router.get('/sneaky', (_req, res) => {
      res.json({ open: true });
    });
    const routes = registeredRoutes((app as unknown as { router: { stack: Layer[] } }).router.stack, '');
    const declared = new Set(app.api.declared.map((d) => `${d.method} ${d.path}`));
    expect(routes.filter((r) => !declared.has(`${r.method} ${r.path}`) && !PUBLIC_PATHS.includes(r.path))).toEqual([
      { method: 'get', path: '/api/v1/sneaky' },
    ]);
  });
});
