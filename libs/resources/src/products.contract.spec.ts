import { loadSync } from '@grpc/proto-loader';
import { PROTO_FILES, PROTO_ROOT } from '@pim/contracts';
import { productCatalogSchema, productSchemas, publishmentSchema } from './products';

// The REST schemas (zod) and the gRPC messages describe the same fields; this keeps them in step.
const pkg = loadSync(PROTO_FILES.products, { includeDirs: [PROTO_ROOT], keepCase: true });
const fieldsOf = (message: string): string[] =>
  (pkg[`pim.catalog.v1.${message}`] as unknown as { type: { field: { name: string }[] } }).type.field
    .map((f) => f.name)
    .sort();
const restToProto = (keys: string[]) => keys.map((k) => (k === '_id' ? 'id' : k)).sort();

describe('products contract: zod schemas vs proto messages', () => {
  it('Product, ProductCatalog and ProductPublishment have the same fields in REST and gRPC', () => {
    expect(restToProto(Object.keys(productSchemas.view.shape))).toEqual(fieldsOf('Product'));
    expect(restToProto(Object.keys(productCatalogSchema.shape))).toEqual(fieldsOf('ProductCatalog'));
    expect(restToProto(Object.keys(publishmentSchema.shape))).toEqual(fieldsOf('ProductPublishment'));
  });

  it('ProductInput has the same fields in REST and gRPC, and a patch may touch each of them', () => {
    expect(restToProto(Object.keys(productSchemas.input.shape))).toEqual(fieldsOf('ProductInput'));
    expect(Object.keys(productSchemas.patch.shape).sort()).toEqual(Object.keys(productSchemas.input.shape).sort());
  });

  it('answers the seven record RPCs, the bulk upsert, the serialized read and list and the internal scan and publication RPCs', () => {
    const service = pkg['pim.catalog.v1.ProductsService'] as unknown as Record<string, unknown>;
    expect(Object.keys(service).sort()).toEqual(
      [
        'BatchGetProducts',
        'BulkUpsertProducts',
        'CreateProduct',
        'DeleteProduct',
        'GetProduct',
        'GetProductJson',
        'ListProducts',
        'ListProductsJson',
        'PatchProduct',
        'ScanProducts',
        'UpdateProduct',
        'UpdateProductPublication',
      ].sort(),
    );
  });

  it('refuses a variation type outside ProductTypeEnum and a product without a name', () => {
    const r = productSchemas.input.safeParse({ code: 'x', name: {}, type: 'bundle' });
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join('.')).sort()).toEqual(['name', 'type']);
  });
});
