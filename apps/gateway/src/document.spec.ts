import { buildApiDocument } from './app';
import { DEFAULT_SERVER_URL, serverEntry } from './document';

type Parameter = { name: string; in: string; schema: { maximum?: number; $ref?: string } };
type Operation = {
  parameters?: (Parameter | { $ref: string })[];
  requestBody?: { required?: boolean; content: Record<string, MediaType> };
  responses: Record<string, { $ref?: string; headers?: Record<string, unknown>; content?: Record<string, MediaType> }>;
};
type MediaType = { schema?: unknown; example?: unknown; examples?: Record<string, { $ref?: string }> };

describe('the OpenAPI document', () => {
  const doc = buildApiDocument();
  const components = doc.components as Record<string, Record<string, Record<string, unknown>>>;
  const paths = doc.paths as Record<string, Record<string, Operation>>;
  const op = (path: string, method: string) => paths[path][method];
  const operations = Object.values(paths).flatMap((item) => Object.values(item));
  /** An operation's parameters, shared ones (`$ref`) written out. */
  const parametersOf = (o: Operation): Parameter[] =>
    (o.parameters ?? []).map((p) =>
      '$ref' in p ? (components.parameters[p.$ref.replace('#/components/parameters/', '')] as Parameter) : p,
    );

  it("names the gateway's public URL as its server, and a usable default in the exported document", () => {
    expect(serverEntry('https://pim.example.com/')).toMatchObject({ url: 'https://pim.example.com' });
    expect(serverEntry('http://127.0.0.1:8080').url).toBe('http://127.0.0.1:8080');
    expect(serverEntry('http://127.0.0.1:8080').description).toMatch(/plain HTTP/);
    expect(serverEntry()).toMatchObject({ url: DEFAULT_SERVER_URL });
    expect(doc.servers).toEqual([serverEntry()]);
    expect(buildApiDocument({ publicUrl: 'https://pim.example.com' }).servers?.[0].url).toBe('https://pim.example.com');
    // For the API's callers: a public bundle (which drops what is internal) keeps it.
    for (const server of doc.servers ?? []) expect(server).toMatchObject({ 'x-internal': false });
  });

  it('answers 304 to a conditional GET of a record, and only where an ETag is sent', () => {
    const get = op('/api/v1/webhooks/{id}', 'get');
    const notModified = components.responses[get.responses['304'].$ref!.split('/').pop()!] as {
      headers: Record<string, unknown>;
    };
    expect(notModified.headers).toHaveProperty('ETag');
    expect(parametersOf(get).map((p) => p.name)).toContain('if-none-match');
    expect(op('/api/v1/webhooks', 'get').responses['304']).toBeUndefined();
  });

  it('makes a body optional only where the route accepts none', () => {
    expect(op('/api/v1/api-keys/{id}/rotate', 'post').requestBody?.required).toBe(false);
    expect(op('/api/v1/webhooks', 'post').requestBody?.required).toBe(true);
  });

  it('shares one response per error status, with Retry-After where the gateway always sends it', () => {
    expect(op('/api/v1/webhooks', 'get').responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
    const responses = components.responses as Record<string, { headers: Record<string, { required?: boolean }> }>;
    expect(responses.TooManyRequests.headers).toHaveProperty('Retry-After');
    expect(responses.ServiceUnavailable.headers).toHaveProperty('Retry-After');
    expect(responses.Conflict.headers['Retry-After']).toMatchObject({ required: false });
  });

  it('bounds page sizes by the configured maximum', () => {
    const limit = (d: ReturnType<typeof buildApiDocument>) =>
      (d.components?.parameters?.limit as Parameter | undefined)?.schema.maximum;
    expect(parametersOf(op('/api/v1/webhooks', 'get'))).toContainEqual(expect.objectContaining({ name: 'limit' }));
    expect(limit(doc)).toBe(100);
    expect(limit(buildApiDocument({ maxLimit: 500 }))).toBe(500);
  });

  it("describes a list's filters once: a property per field, a pattern per group of operator keys", () => {
    const list = parametersOf(op('/api/v1/orders', 'get'));
    const filter = list.find((p) => p.name === 'filter') as Parameter & { style: string; explode: boolean };
    expect(filter).toMatchObject({ in: 'query', style: 'form', explode: true });
    expect(filter.schema.$ref).toBe('#/components/schemas/OrderFilter');
    const schema = components.schemas.OrderFilter as {
      properties: Record<string, unknown>;
      patternProperties: Record<string, unknown>;
    };
    expect(schema.properties.code).toEqual({ $ref: '#/components/schemas/FilterText' });
    const keys = (key: string) => Object.keys(schema.patternProperties).some((p) => new RegExp(p).test(key));
    for (const key of ['code_in', 'placed_at_gte', 'customer.email_ne', '_id_gt', 'workflow_id_exists'])
      expect(keys(key)).toBe(true);
    for (const key of ['code_gt', 'nosuch_in', 'customerXemail_ne']) expect(keys(key)).toBe(false);
    // Paging, sort and search stay parameters of their own; no filter key is one any more.
    expect(list.map((p) => p.name)).toEqual(['page', 'limit', 'skip', 'filter', 'sort', '_search', 'overdue']);
  });

  it('describes every tag and every component schema', () => {
    expect((doc.tags ?? []).filter((t) => !t.description).map((t) => t.name)).toEqual([]);
    expect(Object.entries(components.schemas).flatMap(([name, s]) => (s.description ? [] : [name]))).toEqual([]);
  });

  it('gives every request and response body an example', () => {
    const bodies: MediaType[] = [
      ...Object.values(components.responses).flatMap((r) =>
        Object.values((r.content ?? {}) as Record<string, MediaType>),
      ),
      ...operations.flatMap((o) => [
        ...Object.values(o.requestBody?.content ?? {}),
        ...Object.values(o.responses).flatMap((r) => Object.values(r.content ?? {})),
      ]),
    ];
    expect(bodies.length).toBeGreaterThan(150);
    const without = bodies.filter((m) => m.example === undefined && m.examples === undefined);
    expect(without).toEqual([]);
    for (const m of bodies)
      for (const e of Object.values(m.examples ?? {}))
        expect(components.examples[e.$ref!.replace('#/components/examples/', '')]).toBeDefined();
  });

  it('stays small: at most 700 KB minified', () => {
    expect(JSON.stringify(doc).length).toBeLessThanOrEqual(700_000);
  });
});
