import { productRelationSchemas } from './relations';

const ID = '6740a1b2c3d4e5f601234567';
const OTHER = '6740a1b2c3d4e5f601234568';

describe('product relation input', () => {
  it('takes exactly the list the type names, positive quantities, each id once and never the product itself', () => {
    const ok = productRelationSchemas.input.safeParse({
      type: 'kit_products',
      product_id: ID,
      kit_products: [{ id: OTHER, quantity: 2 }],
    });
    expect(ok.success).toBe(true);
    const paths = (input: unknown) =>
      productRelationSchemas.input
        .safeParse(input)
        .error?.issues.map((i) => i.path.join('.'))
        .sort();
    expect(
      paths({
        type: 'kit_products',
        product_id: ID,
        kit_products: [{ id: OTHER, quantity: 0 }],
        association: [{ id: OTHER }],
      }),
    ).toEqual(['association', 'kit_products.0.quantity']);
    expect(paths({ type: 'association', product_id: ID, association: [{ id: OTHER }, { id: OTHER }] })).toEqual([
      'association',
    ]);
    expect(paths({ type: 'association', product_id: ID, association: [{ id: ID }] })).toEqual(['association.0.id']);
    expect(
      paths({ type: 'ineligible_service_categories', product_id: ID, ineligible_service_categories: [{ id: OTHER }] }),
    ).toEqual(['ineligible_service_categories.0.category_tree_id']);
  });
});
