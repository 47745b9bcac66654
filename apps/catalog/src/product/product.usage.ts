import type { EntityManager } from 'typeorm';
import { refuseInUse } from '@pim/records';
import { productsNaming, type ProductReferenceField } from '../repositories/products.repository';

/**
 * A delete hook refusing (409 with the count) to delete a record that live products name. Product
 * writes share-lock the records they name, and the delete holds the record's row lock, so none
 * can start naming it between the count and the commit.
 */
export function refuseDeleteNamedByProducts(label: string, field: ProductReferenceField) {
  return async (m: EntityManager, record: { _id: string; code?: string; key?: string }): Promise<void> => {
    const count = await productsNaming(m, field, record._id);
    refuseInUse(label, record.code ?? record.key ?? record._id, [
      { count, collection: 'products', query: { [field]: record._id } },
    ]);
  };
}
