import { taxonomy as pb } from '@pim/contracts';
import { NotFoundError } from '@pim/errors';
import { createRpcClient } from '@pim/rpc';
import {
  createTestDatabase,
  createTestStream,
  freePort,
  startAppProcess,
  type AppProcess,
  type TestDatabase,
  type TestStream,
} from '@pim/testing';

/** `GET /metrics` of a process: its status, content type and text. */
async function scrape(port: number): Promise<{ status: number; type: string | null; text: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`);
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

/** The value of the first sample whose line starts with `prefix` (undefined when there is none). */
function valueOf(text: string, prefix: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(prefix));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

// Apps started as `npm start` starts them (their own process, from source), with their metrics
// port set: what a Prometheus scrape of each gets, through the kit every app shares.
describe('metrics of running apps (GET /metrics on <APP>_METRICS_PORT)', () => {
  let db: TestDatabase;
  let stream: TestStream;
  const apps: AppProcess[] = [];

  beforeAll(async () => {
    db = await createTestDatabase('app_metrics');
    stream = await createTestStream('appmetrics');
  });

  afterAll(async () => {
    await Promise.all(apps.map((a) => a.stop()));
    await stream?.destroy();
    await db?.drop();
  });

  it('catalog: gRPC calls by method and code, its outbox backlog and lag, its database pool, process metrics', async () => {
    const metricsPort = await freePort();
    // startAppProcess turns the relay off, so the event of the write below waits in the outbox.
    const catalog = await startAppProcess('catalog', db.url, { CATALOG_METRICS_PORT: String(metricsPort) });
    apps.push(catalog);

    const trees = createRpcClient(pb.CategoryTreesServiceClient, {
      service: 'catalog',
      address: catalog.address,
      deadlineMs: 10_000,
    });
    try {
      await trees.createCategoryTree({
        input: { code: 'metrics', name: { en: 'Metrics' }, description: {}, tags: [] },
      });
      const missing = await trees.getCategoryTree({ id: '6740a1b2c3d4e5f601234567' }).catch((e) => e);
      expect(missing).toBeInstanceOf(NotFoundError);
    } finally {
      trees.close();
    }

    const { status, type, text } = await scrape(metricsPort);
    expect(status).toBe(200);
    expect(type).toMatch(/^text\/plain/);
    const method = 'pim.catalog.v1.CategoryTreesService';
    expect(valueOf(text, `pim_grpc_server_requests_total{method="${method}/CreateCategoryTree",code="OK"}`)).toBe(1);
    expect(valueOf(text, `pim_grpc_server_requests_total{method="${method}/GetCategoryTree",code="NOT_FOUND"}`)).toBe(
      1,
    );
    expect(
      valueOf(text, `pim_grpc_server_request_duration_seconds_count{method="${method}/CreateCategoryTree",code="OK"}`),
    ).toBe(1);
    expect(valueOf(text, 'pim_outbox_backlog ')).toBe(1);
    expect(valueOf(text, 'pim_outbox_lag_seconds ')).toBeGreaterThan(0);
    expect(valueOf(text, 'pim_outbox_published_total ')).toBe(0);
    expect(text).toContain('# TYPE pim_outbox_failed_total counter');
    expect(valueOf(text, 'pim_db_pool_connections{pool="main"}')).toBeGreaterThan(0);
    expect(valueOf(text, 'pim_db_pool_idle_connections{pool="main"}')).toBeGreaterThanOrEqual(0);
    expect(valueOf(text, 'pim_db_pool_waiting_queries{pool="main"}')).toBe(0);
    expect(valueOf(text, 'pim_db_pool_max_connections{pool="main"}')).toBe(10);
    expect(text).toContain('# TYPE pim_catalog_process_cpu_seconds_total counter');
  });

  it('publisher: its auto-republish consumer lag by durable and its publication outcomes counter', async () => {
    const metricsPort = await freePort();
    const durable = 'metrics-auto-republish';
    const publisher = await startAppProcess('publisher', db.url, {
      PUBLISHER_METRICS_PORT: String(metricsPort),
      NATS_URL: stream.url,
      PIM_EVENTS_STREAM: stream.name,
      PIM_SUBJECT_PREFIX: stream.subjectPrefix,
      PUBLISHER_AUTO_REPUBLISH_CONSUMER: durable,
    });
    apps.push(publisher);

    // The consumer is created in the background once the app runs.
    let text = '';
    for (let i = 0; i < 100; i++) {
      text = (await scrape(metricsPort)).text;
      if (valueOf(text, `pim_nats_consumer_pending{durable="${durable}"}`) === 0) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(valueOf(text, `pim_nats_consumer_pending{durable="${durable}"}`)).toBe(0);
    expect(valueOf(text, `pim_nats_consumer_ack_pending{durable="${durable}"}`)).toBe(0);
    expect(text).toContain('# TYPE pim_publisher_publications_total counter');
    expect(text).toContain('# TYPE pim_grpc_server_requests_total counter');
    expect(valueOf(text, 'pim_outbox_backlog ')).toBe(0);
  });

  it('gateway: HTTP requests by declared route on GATEWAY_METRICS_PORT (not on the API port), and its two pools', async () => {
    const metricsPort = await freePort();
    const port = await freePort();
    // startAppProcess waits for `port`: the gateway's HTTP port here.
    const gateway = await startAppProcess(
      'gateway',
      db.url,
      { GATEWAY_METRICS_PORT: String(metricsPort), PORT: String(port) },
      { port },
    );
    apps.push(gateway);

    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${port}/api/v1/no-such-things/1`)).status).toBe(401);
    expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).not.toBe(200);

    const { status, text } = await scrape(metricsPort);
    expect(status).toBe(200);
    expect(valueOf(text, 'pim_http_requests_total{method="GET",route="/healthz",status="200"}')).toBe(1);
    expect(valueOf(text, 'pim_http_requests_total{method="GET",route="unmatched",status="401"}')).toBe(1);
    expect(text).toContain('# TYPE pim_http_request_duration_seconds histogram');
    expect(valueOf(text, 'pim_db_pool_max_connections{pool="main"}')).toBe(20);
    expect(valueOf(text, 'pim_db_pool_max_connections{pool="rate_limit"}')).toBe(10);
    expect(text).toContain('# TYPE pim_gateway_process_cpu_seconds_total counter');
  });
});
