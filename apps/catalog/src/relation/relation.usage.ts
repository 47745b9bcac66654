import type { EntityManager } from 'typeorm';
import { refuseInUse } from '@pim/records';
import { relationsNaming } from '../repositories/product-relations.repository';

/**
 * A delete hook refusing (409 with the count) to delete a product or category that live relations
 * name. Relation writes share-lock what they name and the delete holds the record's row lock, so
 * none can start naming it between the count and the commit.
 */
export function refuseDeleteNamedByRelations(label: string) {
  return async (m: EntityManager, record: { _id: string; code?: string }): Promise<void> => {
    const count = await relationsNaming(m, record._id);
    refuseInUse(label, record.code ?? record._id, [
      {
        count,
        collection: 'product_relations',
        query: { product_id: record._id },
        more: 'and the relations whose lists name it',
      },
    ]);
  };
}
