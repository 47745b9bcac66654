import { credentials, Metadata, type ClientReadableStream } from '@grpc/grpc-js';
import { PROTO_FILES, PROTO_ROOT, products as pb } from '@pim/contracts';
import { ValidationError, fromGrpcError } from '@pim/errors';
import { createLogger, currentContext } from '@pim/logging';
import { GrpcApp, contextToMetadata, serverStream, unimplemented, type CallContext } from './index';

const logger = createLogger({ service: 'rpc-stream-test', level: 'silent' });

/** Every message of a stream, or the domain error it ended with. */
async function drain<T>(stream: ClientReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  try {
    for await (const m of stream) out.push(m as T);
  } catch (err) {
    throw fromGrpcError(err, 'catalog');
  }
  return out;
}

const product = (n: number): pb.Product => ({
  ...pb.Product.fromPartial({ id: String(n).padStart(24, '0'), code: `p${n}`, type: 'simple', version: 1 }),
});

// A server-streaming handler over a real grpc-js server: order, context, errors and cancellation.
describe('rpc: serverStream', () => {
  let app: GrpcApp;
  let client: pb.ProductsServiceClient;
  let seen: CallContext[] = [];
  let stoppedAt: number | undefined;

  beforeAll(async () => {
    const unused = unimplemented('unused');
    const implementation = {
      ...Object.fromEntries(Object.keys(pb.ProductsServiceService).map((k) => [k, unused])),
      scanProducts: serverStream(logger, 'ScanProducts', async (req: pb.ScanProductsRequest, send, ctx) => {
        seen.push({ ...ctx, actor: currentContext()?.actor });
        const search = req.query?.search ?? '';
        if (search === 'bad')
          throw new ValidationError('query is bad', { details: [{ field: '_search', message: 'bad' }] });
        const batches = search === 'endless' ? Number.MAX_SAFE_INTEGER : 20;
        for (let b = 0; b < batches; b++) {
          if (search === 'fail-late' && b === 3) throw new Error('SELECT secret failed');
          try {
            await send({ data: Array.from({ length: 50 }, (_, i) => product(b * 50 + i)) });
          } catch (err) {
            stoppedAt = b;
            throw err;
          }
        }
      }),
    } as unknown as pb.ProductsServiceServer;
    app = new GrpcApp({
      logger,
      services: [{ name: 'pim.catalog.v1.ProductsService', definition: pb.ProductsServiceService, implementation }],
      protoRoot: PROTO_ROOT,
      protoFiles: [PROTO_FILES.products],
      shutdownGraceMs: 2000,
    });
    const port = await app.listen(0, '127.0.0.1');
    client = new pb.ProductsServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
  });

  afterAll(async () => {
    client?.close();
    await app?.shutdown();
  });

  beforeEach(() => {
    seen = [];
  });

  const scan = (search: string, md = new Metadata()) =>
    client.scanProducts(
      { query: { page: 1, limit: 0, skip: 0, sort: [], filters: [], expand: [], search }, batch_size: 50, omit: [] },
      md,
    );

  it('streams every batch in order and carries the request id and caller', async () => {
    const md = contextToMetadata({ requestId: 'req-s1', actor: { user_id: 'u1', user_name: 'Ana' } });
    const messages = await drain(scan('', md));
    expect(messages).toHaveLength(20);
    const codes = messages.flatMap((m) => m.data.map((p) => p.code));
    expect(codes).toEqual(Array.from({ length: 1000 }, (_, i) => `p${i}`));
    expect(seen[0]).toMatchObject({ requestId: 'req-s1', actor: { user_id: 'u1', user_name: 'Ana' } });
  });

  it('ends with the mapped domain error, before or after some batches, never leaking internals', async () => {
    const bad = await drain(scan('bad')).catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.details).toEqual([{ field: '_search', message: 'bad' }]);

    const received: pb.ScanProductsResponse[] = [];
    const stream = scan('fail-late');
    stream.on('data', (m: pb.ScanProductsResponse) => received.push(m));
    const late = await new Promise<unknown>((resolve) => stream.on('error', resolve));
    const err = fromGrpcError(late, 'catalog');
    expect(err.status).toBe(500);
    expect(err.message).not.toContain('secret');
    expect(received).toHaveLength(3);
  });

  it('stops the producer when the caller cancels', async () => {
    stoppedAt = undefined;
    const stream = scan('endless');
    let got = 0;
    await new Promise<void>((resolve) => {
      stream.on('data', () => {
        if (++got === 5) {
          stream.cancel();
          resolve();
        }
      });
    });
    stream.on('error', () => undefined);
    while (stoppedAt === undefined) await new Promise((r) => setTimeout(r, 20));
    // It stopped at its next send after the cancel, not after an endless number of batches.
    expect(stoppedAt).toBeGreaterThanOrEqual(4);
  });
});
