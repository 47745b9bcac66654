import { buildApiDocument } from './app';
import { serverEntry } from './document';

type Operation = {
  parameters?: { name: string; in: string; schema: { maximum?: number } }[];
  requestBody?: { required?: boolean };
  responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }>;
};

describe('the OpenAPI document', () => {
  const doc = buildApiDocument();
  const op = (path: string, method: string) => (doc.paths as Record<string, Record<string, Operation>>)[path][method];

  it('lists an https PUBLIC_URL as a public server and never advertises a plain-http one', () => {
    expect(serverEntry('https://pim.example.com/')).toMatchObject({
      url: 'https://pim.example.com',
      'x-internal': false,
    });
    for (const local of ['http://127.0.0.1:8080', undefined]) {
      expect(serverEntry(local)).toMatchObject({ url: '/', 'x-internal': true });
      expect(serverEntry(local).description).toMatch(/local/i);
    }
    expect(doc.servers).toEqual([serverEntry()]);
  });

  it('answers 304 to a conditional GET of a record, and only where an ETag is sent', () => {
    const get = op('/api/v1/webhooks/{id}', 'get');
    expect(get.responses['304'].headers).toHaveProperty('ETag');
    expect(get.parameters?.map((p) => p.name)).toContain('if-none-match');
    expect(op('/api/v1/webhooks', 'get').responses['304']).toBeUndefined();
  });

  it('makes a body optional only where the route accepts none', () => {
    expect(op('/api/v1/api-keys/{id}/rotate', 'post').requestBody?.required).toBe(false);
    expect(op('/api/v1/webhooks', 'post').requestBody?.required).toBe(true);
  });

  it('shares one response per error status, with Retry-After where the gateway always sends it', () => {
    expect(op('/api/v1/webhooks', 'get').responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
    const responses = doc.components?.responses as Record<string, { headers: Record<string, { required?: boolean }> }>;
    expect(responses.TooManyRequests.headers).toHaveProperty('Retry-After');
    expect(responses.ServiceUnavailable.headers).toHaveProperty('Retry-After');
    expect(responses.Conflict.headers['Retry-After']).toMatchObject({ required: false });
  });

  it('bounds page sizes by the configured maximum', () => {
    const limit = (d: ReturnType<typeof buildApiDocument>) =>
      (d.paths as Record<string, Record<string, Operation>>)['/api/v1/webhooks'].get.parameters?.find(
        (p) => p.name === 'limit',
      )?.schema.maximum;
    expect(limit(doc)).toBe(100);
    expect(limit(buildApiDocument({ maxLimit: 500 }))).toBe(500);
  });
});
