import { PRODUCT_RELATION_TYPES, Product, ProductRelation } from '@pim/resources';
import { declaredCodec } from './declared.codec';

const ID = '6740a1b2c3d4e5f601234567';
const OTHER = '6740a1b2c3d4e5f601234568';
const tail = { version: 1, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z' };

describe('declaredCodec', () => {
  const relations = declaredCodec<
    Record<string, unknown> & { _id: string },
    { id: string } & Record<string, unknown>,
    unknown,
    unknown
  >(ProductRelation);

  it('sends an omitted list empty, since a repeated field has no absent form', () => {
    const input = relations.toInput({ type: 'association', product_id: ID, association: [{ id: OTHER }] }) as Record<
      string,
      unknown
    >;
    expect(input).toEqual({
      type: 'association',
      product_id: ID,
      ...Object.fromEntries(PRODUCT_RELATION_TYPES.map((t) => [t, t === 'association' ? [{ id: OTHER }] : []])),
    });
  });

  it('leaves out of the view an optional list that arrives empty, and unset optional fields', () => {
    const message = {
      id: ID,
      type: 'association',
      product_id: OTHER,
      ...Object.fromEntries(PRODUCT_RELATION_TYPES.map((t) => [t, t === 'association' ? [{ id: ID }] : []])),
      ...tail,
      created_by_name: undefined,
    };
    expect(Object.keys(relations.fromMessage(message))).toEqual([
      '_id',
      'type',
      'product_id',
      'association',
      'version',
      'created_at',
      'updated_at',
    ]);
  });

  it('shows a Struct the message leaves unset as its declared default', () => {
    const products = declaredCodec<
      Record<string, unknown> & { _id: string },
      { id: string } & Record<string, unknown>,
      unknown,
      unknown
    >(Product);
    const view = products.fromMessage({ id: ID, code: 'p', name: { en: 'P' }, attributes: undefined, ...tail });
    expect(view.attributes).toEqual({});
    expect(view.attributes_schema_snapshot).toEqual({});
    expect('fulfilled' in view).toBe(false);
  });
});
