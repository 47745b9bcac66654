import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startReceiver, type TestReceiver } from '@pim/testing';
import { eventually, startE2E, type E2E } from './platform';

/** A span as an OTLP/HTTP JSON export carries it, with the service that sent it. */
interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  status: { code?: number };
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  boolValue?: boolean;
  doubleValue?: number;
}
interface OtlpExport {
  resourceSpans?: {
    resource?: { attributes?: { key: string; value: OtlpValue }[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        attributes?: { key: string; value: OtlpValue }[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

// OTLP/JSON ids are hex; base64 (the protobuf JSON mapping) is read too.
const hex = (id: string | undefined): string =>
  !id ? '' : /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
const valueOf = (v: OtlpValue): unknown =>
  v.stringValue ?? (v.intValue !== undefined ? Number(v.intValue) : (v.boolValue ?? v.doubleValue));

/** A tiny OTLP/HTTP receiver (JSON encoding): what every app of the platform exports lands here. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces' && req.method === 'POST') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
        for (const rs of body.resourceSpans ?? []) {
          const service = String(
            valueOf(rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value ?? {}) ?? '',
          );
          for (const ss of rs.scopeSpans ?? [])
            for (const s of ss.spans ?? [])
              spans.push({
                service,
                traceId: hex(s.traceId),
                spanId: hex(s.spanId),
                parentSpanId: hex(s.parentSpanId),
                name: s.name,
                kind: s.kind,
                attributes: Object.fromEntries((s.attributes ?? []).map((a) => [a.key, valueOf(a.value)])),
                status: s.status ?? {},
              });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

// OTLP span kinds.
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

// Every app started as `npm start` starts it, with tracing turned on by the standard variables
// only, exporting to a collector in the test: one HTTP call's trace, followed across processes to
// the webhook delivery it caused, to the job it queued, to the channel request of the publication
// it created.
describe('tracing: one trace from an HTTP request to what it caused, across processes', () => {
  let e2e: E2E;
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let receiver: TestReceiver;
  let shop: TestReceiver;

  beforeAll(async () => {
    collector = await startCollector();
    receiver = await startReceiver();
    shop = await startReceiver('/listings');
    e2e = await startE2E('e2etracing', {
      WEBHOOKS_ALLOWED_TARGETS: '127.0.0.0/8,::1/128',
      PUBLISHER_ALLOWED_TARGETS: '127.0.0.0/8,::1/128',
      OTEL_TRACES_EXPORTER: 'otlp',
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '100',
    });
  });

  afterAll(async () => {
    await e2e?.close();
    await receiver?.close();
    await shop?.close();
    await collector?.close();
  });

  it('gateway HTTP span → gRPC → catalog write → outbox publish → webhooks fan-out → the delivery POST', async () => {
    const sink = await e2e.api('PUT', '/api/v1/webhooks', { collection: 'brands', url: receiver.url });
    expect(sink.status).toBe(200);

    const created = await e2e.api(
      'POST',
      '/api/v1/brands',
      { code: 'traced', name: { en: 'Traced' } },
      { 'x-request-id': 'req-e2e-trace' },
    );
    expect(created.status).toBe(201);
    await receiver.waitFor(1, 30_000);

    // The HTTP call's span, named by its declared route.
    let http: ExportedSpan | undefined;
    await eventually(async () => {
      http = collector.spans.find((s) => s.kind === SERVER && s.attributes['pim.request_id'] === 'req-e2e-trace');
      return http !== undefined;
    }, 30_000);
    expect(http).toMatchObject({
      service: 'gateway',
      name: 'POST /api/v1/brands',
      attributes: { 'http.request.method': 'POST', 'http.route': '/api/v1/brands', 'http.response.status_code': 201 },
    });
    const trace = http!.traceId;
    const inTrace = () => collector.spans.filter((s) => s.traceId === trace);
    const deliver = () => inTrace().find((s) => s.name === 'deliver brands.created');
    await eventually(async () => deliver() !== undefined, 30_000);
    // Each process exports its spans on its own timer: the catalog's may arrive after the delivery's.
    const rpcName = 'pim.catalog.v1.BrandsService/CreateBrand';
    const catalogNames = [rpcName, 'brands.create', 'publish pim.catalog.brands.created'];
    await eventually(
      async () => catalogNames.every((n) => inTrace().some((s) => s.service === 'catalog' && s.name === n)),
      30_000,
    );

    // Every hop, each a child of the one before, in the one trace.
    const spans = inTrace();
    const one = (service: string, kind: number, name: string): ExportedSpan => {
      const found = spans.filter((s) => s.service === service && s.kind === kind && s.name === name);
      expect({ service, kind, name, found: found.length }).toEqual({ service, kind, name, found: 1 });
      return found[0];
    };
    const rpc = 'pim.catalog.v1.BrandsService/CreateBrand';
    const grpcClient = one('gateway', CLIENT, rpc);
    const grpcServer = one('catalog', SERVER, rpc);
    const write = spans.find((s) => s.service === 'catalog' && s.name === 'brands.create')!;
    const publish = one('catalog', PRODUCER, 'publish pim.catalog.brands.created');
    const fanout = spans.find(
      (s) => s.service === 'webhooks' && s.kind === CONSUMER && s.name.endsWith('pim.catalog.brands.created'),
    )!;
    const attempt = one('webhooks', CLIENT, 'deliver brands.created');
    const chain = [http!, grpcClient, grpcServer, write, publish, fanout, attempt];
    for (let i = 1; i < chain.length; i++)
      expect({ span: chain[i].name, parent: chain[i].parentSpanId }).toEqual({
        span: chain[i].name,
        parent: chain[i - 1].spanId,
      });
    expect(new Set(chain.map((s) => s.traceId))).toEqual(new Set([trace]));
    expect(attempt.attributes).toMatchObject({ 'http.response.status_code': 200, 'pim.delivery.outcome': 'success' });

    // The receiver got the event, without anything of the trace.
    const got = receiver.requests[0];
    expect(JSON.parse(got.body)).toMatchObject({ type: 'brands.created', data: { code: 'traced' } });
    expect(got.headers.traceparent).toBeUndefined();
    expect(got.body).not.toContain(trace);
  });

  it("an export's job runs in the trace of the request that created it, and its catalog calls too", async () => {
    const created = await e2e.api(
      'POST',
      '/api/v1/exports',
      { file_type: 'csv', filters: {} },
      { 'x-request-id': 'req-e2e-export' },
    );
    expect(created.status).toBeLessThan(300);
    let http: ExportedSpan | undefined;
    let run: ExportedSpan | undefined;
    await eventually(async () => {
      http = collector.spans.find((s) => s.kind === SERVER && s.attributes['pim.request_id'] === 'req-e2e-export');
      run = http && collector.spans.find((s) => s.traceId === http!.traceId && s.name === 'run exports');
      return run !== undefined;
    }, 30_000);
    expect(http!.name).toBe('POST /api/v1/exports');
    expect(run).toMatchObject({ service: 'io-jobs', kind: CONSUMER, attributes: { 'pim.job.queue': 'exports' } });
    // The job's own work (its calls to the catalog) hangs under the run span.
    await eventually(
      async () =>
        collector.spans.some((s) => s.service === 'io-jobs' && s.kind === CLIENT && s.parentSpanId === run!.spanId),
      30_000,
    );
  });

  it('a publication created over HTTP is sent to its channel in the trace of the POST', async () => {
    const channel = await e2e.api('POST', '/api/v1/channels', {
      code: 'traced_shop',
      name: 'Traced shop',
      endpoint: { url: `${shop.url}?key=s3cret-key`, headers: [{ key: 'Authorization', value: 'Bearer s3cret' }] },
      mapping: [{ field: 'sku', source: 'code' }],
    });
    expect(channel.status).toBe(201);
    const product = await e2e.api('POST', '/api/v1/products', {
      code: 'traced-product',
      name: { en: 'Traced' },
      type: 'simple',
    });
    expect(product.status).toBe(201);
    const created = await e2e.api(
      'POST',
      '/api/v1/publications',
      { product_id: product.json._id, channel_id: channel.json._id },
      { 'x-request-id': 'req-e2e-publication' },
    );
    expect(created.status).toBe(201);
    await shop.waitFor(1, 30_000);

    let http: ExportedSpan | undefined;
    let send: ExportedSpan | undefined;
    await eventually(async () => {
      http = collector.spans.find((s) => s.kind === SERVER && s.attributes['pim.request_id'] === 'req-e2e-publication');
      send = http && collector.spans.find((s) => s.traceId === http!.traceId && s.name === 'send traced_shop');
      return send !== undefined;
    }, 30_000);
    expect(http!.name).toBe('POST /api/v1/publications');
    const spans = collector.spans.filter((s) => s.traceId === http!.traceId);
    const one = (service: string, kind: number, name: string): ExportedSpan => {
      const found = spans.filter((s) => s.service === service && s.kind === kind && s.name === name);
      expect({ service, kind, name, found: found.length }).toEqual({ service, kind, name, found: 1 });
      return found[0];
    };
    const rpc = 'pim.publisher.v1.PublicationsService/CreatePublication';
    const chain = [
      http!,
      one('gateway', CLIENT, rpc),
      one('publisher', SERVER, rpc),
      spans.find((s) => s.service === 'publisher' && s.name === 'publications.create')!,
      one('publisher', CLIENT, 'send traced_shop'),
    ];
    for (let i = 1; i < chain.length; i++)
      expect({ span: chain[i].name, parent: chain[i].parentSpanId }).toEqual({
        span: chain[i].name,
        parent: chain[i - 1].spanId,
      });
    expect(send!.attributes).toMatchObject({
      'http.request.method': 'POST',
      'url.full': `${shop.url}?key=REDACTED`,
      'server.address': '127.0.0.1',
      'server.port': shop.port,
      'http.response.status_code': 200,
      'pim.publication.id': created.json._id,
      'pim.publication.outcome': 'published',
    });
    // The channel got the publication, without anything of the trace.
    const got = shop.requests[0];
    expect(got.headers.traceparent).toBeUndefined();
    expect(got.body).not.toContain(http!.traceId);
  });
});
