import { loadSync } from '@grpc/proto-loader';
import { PROTO_FILES, PROTO_ROOT } from '@pim/contracts';
import { PRODUCT_RELATION_TYPES, productRelationSchemas, relationItemSchemas } from './relations';

// The REST schemas (zod) and the gRPC messages describe the same fields; this keeps them in step.
const pkg = loadSync(PROTO_FILES.relations, { includeDirs: [PROTO_ROOT], keepCase: true });
const fieldsOf = (message: string): string[] =>
  (pkg[`pim.catalog.v1.${message}`] as unknown as { type: { field: { name: string }[] } }).type.field
    .map((f) => f.name)
    .sort();
const restToProto = (keys: string[]) => keys.map((k) => (k === '_id' ? 'id' : k)).sort();

const ID = '6740a1b2c3d4e5f601234567';
const OTHER = '6740a1b2c3d4e5f601234568';

describe('product relations contract: zod schemas vs proto messages', () => {
  it('ProductRelation and ProductRelationInput have the same fields in REST and gRPC, one list per type', () => {
    expect(restToProto(Object.keys(productRelationSchemas.view.shape))).toEqual(fieldsOf('ProductRelation'));
    expect(restToProto(Object.keys(productRelationSchemas.input.shape))).toEqual(fieldsOf('ProductRelationInput'));
    expect(Object.keys(productRelationSchemas.patch.shape).sort()).toEqual(
      Object.keys(productRelationSchemas.input.shape).sort(),
    );
    for (const t of PRODUCT_RELATION_TYPES) expect(fieldsOf('ProductRelationInput')).toContain(t);
  });

  it('every item field exists on the proto item', () => {
    const itemFields = new Set(Object.values(relationItemSchemas).flatMap((s) => Object.keys(s.shape)));
    expect([...itemFields].sort()).toEqual(fieldsOf('ProductRelationItem'));
  });

  it('answers the seven record RPCs', () => {
    const service = pkg['pim.catalog.v1.ProductRelationsService'] as unknown as Record<string, unknown>;
    expect(Object.keys(service).sort()).toEqual(
      [
        'BatchGetProductRelations',
        'CreateProductRelation',
        'DeleteProductRelation',
        'GetProductRelation',
        'ListProductRelations',
        'PatchProductRelation',
        'UpdateProductRelation',
      ].sort(),
    );
  });

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
