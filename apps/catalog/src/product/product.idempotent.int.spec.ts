import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { products as pb } from '@pim/contracts';
import { ConflictError, PreconditionFailedError } from '@pim/errors';
import { runWithContext } from '@pim/logging';
import { ANSWER_WAIT_MS, nextCallToken } from '@pim/rpc';
import { catalogGrpcContext, type CatalogGrpcContext } from '../testing/catalog.grpc';

// Calls carrying an idempotency token (a POST with an Idempotency-Key, through the gateway) over a
// real gRPC server and the real Postgres: the retry of a call that wrote is answered from its
// first run, whether its answer was lost on the way back or two runs raced.
describe('idempotent calls to the catalog (real gRPC, real Postgres)', () => {
  let g: CatalogGrpcContext;

  beforeAll(async () => {
    g = await catalogGrpcContext();
  }, 60_000);

  afterAll(async () => {
    await g?.close();
  });

  /** Runs fn as one run of the request whose token is `token` (each run counts its calls afresh, as a retry does). */
  const asRequest = <T>(token: string, fn: () => Promise<T>): Promise<T> =>
    runWithContext({ requestId: `test-${token.slice(0, 8)}`, idempotency: { token, calls: new Map() } }, fn);
  const newToken = () => randomBytes(32).toString('hex');
  const input = (code: string): pb.ProductInput =>
    pb.ProductInput.fromPartial({ code, type: 'simple', name: { en: code } });
  const create = (code: string) => g.products.createProduct({ input: input(code) });
  const countOf = async (code: string) =>
    Number(
      ((await g.ctx.ds.query('SELECT count(*) AS n FROM products WHERE code = $1', [code])) as { n: string }[])[0].n,
    );
  const createdEvents = async (id: string) =>
    (await g.ctx.events()).filter((e) => e.type === 'products.created' && (e.data as { _id?: string })._id === id);

  it('answers a retried create from its first run: one product, one event, the same answer', async () => {
    const token = newToken();
    const first = await asRequest(token, () => create('idem-a'));
    const retry = await asRequest(token, () => create('idem-a'));
    expect(retry).toEqual(first);
    expect(await countOf('idem-a')).toBe(1);
    expect(await createdEvents(first.data!.id)).toHaveLength(1);
    // Another request (another token) is another create: the code is taken.
    await expect(asRequest(newToken(), () => create('idem-a'))).rejects.toBeInstanceOf(ConflictError);
  });

  it('writes once when two runs of one call race, and both get the writer’s answer', async () => {
    const token = newToken();
    const [a, b] = await Promise.all([
      asRequest(token, () => create('idem-race')),
      asRequest(token, () => create('idem-race')),
    ]);
    expect(b).toEqual(a);
    expect(await countOf('idem-race')).toBe(1);
  });

  it('answers a retried If-Match update from its first run, not with a 412 for the version it moved', async () => {
    const created = (await create('idem-update')).data!;
    const token = newToken();
    const update = () =>
      g.products.updateProduct({
        id: created.id,
        input: { ...input('idem-update'), tags: ['x'] },
        expected_version: 1,
      });
    const first = await asRequest(token, update);
    expect(first.data!.version).toBe(2);
    expect(await asRequest(token, update)).toEqual(first);
    // Without the token the same update is a stale write.
    await expect(update()).rejects.toBeInstanceOf(PreconditionFailedError);
  });

  it('numbers the calls of one request: its second create of the same method is a call of its own', async () => {
    const token = newToken();
    const both = () => asRequest(token, async () => [await create('idem-n1'), await create('idem-n2')]);
    const [first, retried] = [await both(), await both()];
    expect(retried).toEqual(first);
    expect(first[0].data!.id).not.toBe(first[1].data!.id);
    expect([await countOf('idem-n1'), await countOf('idem-n2')]).toEqual([1, 1]);
  });

  it('records nothing for a call that wrote nothing (a read, a refused write)', async () => {
    const token = newToken();
    await expect(asRequest(token, () => g.products.createProduct({ input: input('') }))).rejects.toBeTruthy();
    const rows = (await g.ctx.ds.query('SELECT count(*) AS n FROM idempotent_calls WHERE token = $1', [
      nextCallToken({ token, calls: new Map() }, '/pim.catalog.v1.ProductsService/CreateProduct'),
    ])) as { n: string }[];
    expect(Number(rows[0].n)).toBe(0);
    // The same request corrected is a new run: it writes.
    expect((await asRequest(newToken(), () => create('idem-after-refusal'))).data!.code).toBe('idem-after-refusal');
  });

  it('answers 409 "already carried out" when the first run wrote but died before its answer was kept', async () => {
    const token = newToken();
    const callToken = nextCallToken({ token, calls: new Map() }, '/pim.catalog.v1.ProductsService/CreateProduct');
    // What a run killed between its commit and keeping its answer leaves.
    await g.ctx.ds.query(`INSERT INTO idempotent_calls (token, attempt) VALUES ($1, gen_random_uuid())`, [callToken]);
    const started = Date.now();
    const err = await asRequest(token, () => create('idem-lost')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).message).toMatch(/already carried out/);
    expect(Date.now() - started).toBeGreaterThanOrEqual(ANSWER_WAIT_MS - 100);
    expect(await countOf('idem-lost')).toBe(0);
  }, 20_000);
});
