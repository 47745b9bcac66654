import { Registry } from 'prom-client';
import { PROTO_FILES, PROTO_ROOT, webhooks as pb } from '@pim/contracts';
import { NotFoundError } from '@pim/errors';
import { createLogger } from '@pim/logging';
import { GrpcApp, HealthChecker, createRpcClient, unary } from './index';

const logger = createLogger({ service: 'rpc-metrics-test', level: 'silent' });
const GET = 'pim.webhooks.v1.WebhooksService/GetWebhook';

/** The value of one sample in the registry's text, 0 when the series does not exist. */
async function sample(registry: Registry, name: string, labels: Record<string, string>): Promise<number> {
  const text = await registry.metrics();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`${name}{`) && wanted.every((w) => l.slice(0, l.indexOf('}')).includes(w)));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

// A real grpc-js server and client over loopback: the counts come from the calls, not from stubs.
describe('rpc: gRPC server metrics', () => {
  const registry = new Registry();
  let app: GrpcApp;
  let address: string;
  let release: (() => void) | undefined;

  beforeAll(async () => {
    const implementation: Partial<pb.WebhooksServiceServer> = {
      getWebhook: unary(logger, 'GetWebhook', async (req: pb.GetWebhookRequest) => {
        if (req.id === 'missing') throw new NotFoundError('No webhook with _id missing');
        if (req.id === 'slow') await new Promise<void>((r) => (release = r));
        return {
          webhook: {
            id: req.id,
            collection: 'products',
            headers: [],
            body: [],
            enabled: true,
            version: 1,
            created_at: '2026-01-01T00:00:00.000Z',
            updated_at: '2026-01-01T00:00:00.000Z',
          },
        };
      }),
    };
    app = new GrpcApp({
      logger,
      services: [
        {
          name: 'pim.webhooks.v1.WebhooksService',
          definition: pb.WebhooksServiceService,
          implementation: implementation as pb.WebhooksServiceServer,
        },
      ],
      protoRoot: PROTO_ROOT,
      protoFiles: [PROTO_FILES.webhooks],
      shutdownGraceMs: 1000,
      metrics: registry,
    });
    address = `127.0.0.1:${await app.listen(0, '127.0.0.1')}`;
  });

  afterAll(async () => {
    release?.();
    await app?.shutdown();
  });

  it('counts and times calls by full method name and status name', async () => {
    const c = createRpcClient(pb.WebhooksServiceClient, { service: 'webhooks', address, deadlineMs: 2000 });
    await c.getWebhook({ id: '6740a1b2c3d4e5f601234567' });
    await c.getWebhook({ id: '6740a1b2c3d4e5f601234568' });
    expect(await c.getWebhook({ id: 'missing' }).catch((e) => e)).toBeInstanceOf(NotFoundError);
    c.close();

    expect(await sample(registry, 'pim_grpc_server_requests_total', { method: GET, code: 'OK' })).toBe(2);
    expect(await sample(registry, 'pim_grpc_server_requests_total', { method: GET, code: 'NOT_FOUND' })).toBe(1);
    expect(await sample(registry, 'pim_grpc_server_request_duration_seconds_count', { method: GET, code: 'OK' })).toBe(
      2,
    );
    expect(
      await sample(registry, 'pim_grpc_server_request_duration_seconds_bucket', {
        method: GET,
        code: 'NOT_FOUND',
        le: '+Inf',
      }),
    ).toBe(1);
    // The ids asked for never become labels.
    expect(await registry.metrics()).not.toContain('6740a1b2c3d4e5f601234567');
  });

  it('counts a call past its deadline as DEADLINE_EXCEEDED, and the health service like any other', async () => {
    const c = createRpcClient(pb.WebhooksServiceClient, { service: 'webhooks', address, deadlineMs: 2000 });
    await c.getWebhook({ id: 'slow' }, { deadlineMs: 150 }).catch((e) => e);
    const health = new HealthChecker(address);
    expect(await health.check('')).toBe('SERVING');
    health.close();
    for (let i = 0; i < 50; i++) {
      if ((await sample(registry, 'pim_grpc_server_requests_total', { code: 'DEADLINE_EXCEEDED' })) > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    release?.();
    c.close();
    expect(await sample(registry, 'pim_grpc_server_requests_total', { method: GET, code: 'DEADLINE_EXCEEDED' })).toBe(
      1,
    );
    expect(
      await sample(registry, 'pim_grpc_server_requests_total', { method: 'grpc.health.v1.Health/Check', code: 'OK' }),
    ).toBe(1);
  });
});
