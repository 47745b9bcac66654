import type { EntityManager } from 'typeorm';
import { NotFoundError } from '@pim/errors';
import { runWithContext, type ProductAccess } from '@pim/logging';
import type { RecordEntity } from './record.entity';
import { productOwnedAudience, runAsOwnedAudience } from './record.audience';

type Owned = RecordEntity & { product_id: string };

const m = {} as EntityManager;
const restricted = (): ProductAccess => ({ user_id: '6740a1b2c3d4e5f6000000a1', all_products: false, groups: ['g1'] });

/** An audience over records of products p1…p3 (r1 → p1, r2 → p2, r3 → p3), where the caller sees p1 and p3. */
function world() {
  const productOf: Record<string, string> = { r1: 'p1', r2: 'p2', r3: 'p3' };
  const asked: string[][] = [];
  const audience = productOwnedAudience<Owned, never>({
    productIds: async (_m, about) => [...new Set((about ?? Object.keys(productOf)).map((r) => productOf[r]))],
    visible: async (ids) => {
      asked.push(ids);
      return ids.filter((id) => id !== 'p2');
    },
  });
  return { audience, asked };
}

describe('productOwnedAudience', () => {
  it('restricts nothing for a caller without access or with every product', async () => {
    const { audience, asked } = world();
    expect(await audience(m)).toBeUndefined();
    const full = { ...restricted(), all_products: true };
    expect(await runWithContext({ requestId: 't', actor: { access: full } }, () => audience(m))).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('keeps the records of the products the caller sees, asking about each product once per call', async () => {
    const { audience, asked } = world();
    const access = restricted();
    const [all, one, again] = await runWithContext({ requestId: 't', actor: { access } }, async () => [
      await audience(m),
      await audience(m, ['r2']),
      await audience(m, ['r1', 'r3']),
    ]);
    expect(all?.where).toEqual({
      sql: 't.product_id = ANY(:seen_product_ids)',
      params: { seen_product_ids: ['p1', 'p3'] },
    });
    expect(one?.where).toEqual({ sql: 'false', params: {} });
    expect(again?.where?.params).toEqual({ seen_product_ids: ['p1', 'p3'] });
    expect(asked).toEqual([['p1', 'p2', 'p3']]);
    // A new call (a new access object) asks again, about the records it names alone.
    await runWithContext({ requestId: 't2', actor: { access: restricted() } }, () => audience(m, ['r2']));
    expect(asked).toEqual([['p1', 'p2', 'p3'], ['p2']]);
  });

  it('refuses a write out of sight as a 404 on product_id, as for no product', async () => {
    const { audience } = world();
    const a = await runWithContext({ requestId: 't', actor: { access: restricted() } }, () => audience(m));
    const err = a?.outOfSight?.({ product_id: 'p2' } as Owned);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ message: "No product with _id 'p2'", details: [{ field: 'product_id' }] });
  });
});

describe('runAsOwnedAudience', () => {
  const audience = runAsOwnedAudience<RecordEntity & { run_as: null }, never>();

  it('restricts nothing for a caller without access or with every product', async () => {
    expect(await audience(m)).toBeUndefined();
    const full = { ...restricted(), all_products: true };
    expect(await runWithContext({ requestId: 't', actor: { access: full } }, () => audience(m))).toBeUndefined();
  });

  it('keeps a restricted caller to the records they run as, by their user id', async () => {
    const a = await runWithContext({ requestId: 't', actor: { access: restricted() } }, () => audience(m, ['r1']));
    expect(a?.where).toEqual({
      sql: "t.run_as ->> 'user_id' = :run_as_user_id",
      params: { run_as_user_id: '6740a1b2c3d4e5f6000000a1' },
    });
  });
});
