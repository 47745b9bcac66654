import { PROTO_FILES } from '@pim/contracts';
import { ProductRelation } from '@pim/resources';
import { contractProblems, recordRpcs, rpcsOf } from '@pim/testing';
import { ProductRelationEntity } from '../entities/relation.entity';

// The product relation is declared once (libs/resources); its table and its messages must agree
// with the declaration in names, types and optionality. The lists have no columns of their own
// (the one the type names is kept in `items`); their items share one message, which must carry
// every field of every list's items and no other.
describe('product relations contract: declaration, entity and proto messages', () => {
  it('ProductRelation agrees with its entity and pim.catalog.v1.ProductRelation / ProductRelationInput', () => {
    expect(
      contractProblems({
        declaration: ProductRelation,
        entity: ProductRelationEntity,
        protoFile: PROTO_FILES.relations,
        message: 'pim.catalog.v1.ProductRelation',
        inputMessage: 'pim.catalog.v1.ProductRelationInput',
      }),
    ).toEqual([]);
  });

  it('answers the seven record RPCs and the internal scan', () => {
    expect(rpcsOf(PROTO_FILES.relations, 'pim.catalog.v1.ProductRelationsService')).toEqual(
      [...recordRpcs('ProductRelation', 'ProductRelations'), 'ScanProductRelations'].sort(),
    );
  });
});
