import { join } from 'node:path';
import { credentials, makeGenericClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { PROTO_FILES, PROTO_ROOT, webhooks as pb } from '@pim/contracts';
import { NotFoundError, UnavailableError, ValidationError } from '@pim/errors';
import { createLogger, currentContext, runWithContext, type RequestContext } from '@pim/logging';
import { GrpcApp, HealthChecker, createRpcClient, unary, type CallContext } from './index';

const logger = createLogger({ service: 'rpc-test', level: 'silent' });
const sample: pb.Webhook = {
  id: '6740a1b2c3d4e5f601234567',
  collection: 'products',
  headers: [],
  body: [],
  enabled: true,
  version: 1,
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};

describe('rpc: server bootstrap and client factory', () => {
  let app: GrpcApp;
  let address: string;
  let seen: CallContext[] = [];
  /** The request context each call's handler ran in. */
  let contexts: (RequestContext | undefined)[] = [];
  let release: (() => void) | undefined;

  beforeAll(async () => {
    const implementation: Partial<pb.WebhooksServiceServer> = {
      getWebhook: unary(logger, 'GetWebhook', async (req: pb.GetWebhookRequest, ctx) => {
        seen.push(ctx);
        contexts.push(currentContext());
        if (req.id === 'missing') throw new NotFoundError('No webhook with _id missing');
        if (req.id === 'bad') throw new ValidationError('id is bad', { details: [{ field: '_id', message: 'bad' }] });
        if (req.id === 'crash') throw new Error('SELECT * FROM secret_table failed');
        if (req.id === 'slow') await new Promise<void>((r) => (release = r));
        return { webhook: { ...sample, created_by_name: currentContext()?.actor?.user_name } };
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
      shutdownGraceMs: 2000,
    });
    address = `127.0.0.1:${await app.listen(0, '127.0.0.1')}`;
  });

  afterAll(async () => {
    release?.();
    await app.shutdown();
  });

  beforeEach(() => {
    seen = [];
    contexts = [];
  });

  const client = () => createRpcClient(pb.WebhooksServiceClient, { service: 'webhooks', address, deadlineMs: 2000 });

  it('carries the request id and the caller across the call', async () => {
    const c = client();
    const ctx: RequestContext = { requestId: 'req-77', actor: { user_id: 'u1', user_name: 'José' } };
    const res = await runWithContext(ctx, () => c.getWebhook({ id: sample.id }));
    expect(res.webhook?.created_by_name).toBe('José');
    expect(seen[0]).toMatchObject({ requestId: 'req-77', actor: { user_id: 'u1', user_name: 'José' } });
    expect(seen[0].deadline).toBeInstanceOf(Date);
    c.close();
  });

  it('ends a call by the deadline of its request when that comes first, and the callee context carries it', async () => {
    const c = client();
    const requestEnds = new Date(Date.now() + 500);
    await runWithContext({ requestId: 'req-deadline', deadline: requestEnds }, () => c.getWebhook({ id: sample.id }));
    // The call's own limit is 2 s; the request ends in 0.5 s: the callee sees the request's end.
    const served = contexts[0]?.deadline?.getTime() ?? 0;
    expect(Math.abs(served - requestEnds.getTime())).toBeLessThan(100);
    await runWithContext({ requestId: 'req-later', deadline: new Date(Date.now() + 60_000) }, () =>
      c.getWebhook({ id: sample.id }),
    );
    expect((contexts[1]?.deadline?.getTime() ?? 0) - Date.now()).toBeLessThan(2_100);
    c.close();
  });

  it('maps domain errors across the wire with their class, message and details', async () => {
    const c = client();
    const nf = await c.getWebhook({ id: 'missing' }).catch((e) => e);
    expect(nf).toBeInstanceOf(NotFoundError);
    expect(nf.message).toBe('No webhook with _id missing');
    const bad = await c.getWebhook({ id: 'bad' }).catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.details).toEqual([{ field: '_id', message: 'bad' }]);
    const crash = await c.getWebhook({ id: 'crash' }).catch((e) => e);
    expect(crash.status).toBe(500);
    expect(crash.message).not.toContain('secret_table');
    c.close();
  });

  it('fails a call past its deadline as unavailable, naming the service', async () => {
    const c = client();
    const err = await c.getWebhook({ id: 'slow' }, { deadlineMs: 200 }).catch((e) => e);
    release?.();
    expect(err).toBeInstanceOf(UnavailableError);
    expect(err.message).toBe('webhooks did not answer in time');
    c.close();
  });

  it('answers an unimplemented method with UNIMPLEMENTED, not a hang', async () => {
    const c = client();
    const err = await c.listWebhooks({}).catch((e) => e);
    expect(err.status).toBe(500);
    c.close();
  });

  it('serves grpc.health.v1 for the server and each service', async () => {
    const h = new HealthChecker(address);
    expect(await h.check('')).toBe('SERVING');
    expect(await h.check('pim.webhooks.v1.WebhooksService')).toBe('SERVING');
    h.close();
    const down = new HealthChecker('127.0.0.1:1');
    expect(await down.check('', 300)).toBe('UNREACHABLE');
    down.close();
  });

  it('serves reflection listing the service', async () => {
    const pkg = loadSync('grpc/reflection/v1/reflection.proto', {
      includeDirs: [join(require.resolve('@grpc/reflection/package.json'), '..', 'build', 'proto')],
      keepCase: true,
    });
    const def = pkg['grpc.reflection.v1.ServerReflection'] as unknown as Parameters<
      typeof makeGenericClientConstructor
    >[0];
    const Ctor = makeGenericClientConstructor(def, 'ServerReflection');
    const c = new Ctor(address, credentials.createInsecure()) as unknown as {
      ServerReflectionInfo(): NodeJS.ReadWriteStream & { write(m: unknown): void };
    };
    const stream = c.ServerReflectionInfo();
    const services = await new Promise<string[]>((resolve, reject) => {
      stream.on('data', (m: { list_services_response?: { service: { name: string }[] } }) => {
        resolve((m.list_services_response?.service ?? []).map((s) => s.name));
        stream.end();
      });
      stream.on('error', (e: ServiceError) => reject(e));
      stream.write({ list_services: '*' });
    });
    expect(services).toContain('pim.webhooks.v1.WebhooksService');
    (c as unknown as { close(): void }).close();
  });
});
