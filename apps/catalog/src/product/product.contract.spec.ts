import { PROTO_FILES } from '@pim/contracts';
import { Product } from '@pim/resources';
import { contractProblems, recordRpcs, rpcsOf } from '@pim/testing';
import { ProductEntity } from '../entities/product.entity';

// The product is declared once (libs/resources); its table and its messages must agree with the
// declaration in names, types and optionality (catalogs and publishments included; attributes
// and the snapshots travel as Structs).
describe('products contract: declaration, entity and proto messages', () => {
  it('Product agrees with its entity and pim.catalog.v1.Product / ProductInput', () => {
    expect(
      contractProblems({
        declaration: Product,
        entity: ProductEntity,
        protoFile: PROTO_FILES.products,
        message: 'pim.catalog.v1.Product',
        inputMessage: 'pim.catalog.v1.ProductInput',
      }),
    ).toEqual([]);
  });

  it('answers the seven record RPCs, the bulk upsert, the serialized read and list and the internal scan, description, publication (one product, and outcomes of many), approved-changes, visibility and query-check RPCs', () => {
    expect(rpcsOf(PROTO_FILES.products, 'pim.catalog.v1.ProductsService')).toEqual(
      [
        ...recordRpcs('Product', 'Products'),
        'ApplyProductChanges',
        'BulkUpsertProducts',
        'CheckProductsQuery',
        'DescribeProducts',
        'FilterVisibleProducts',
        'GetProductJson',
        'ListProductsJson',
        'RecordPublishments',
        'ScanProducts',
        'UpdateProductPublication',
      ].sort(),
    );
  });
});
