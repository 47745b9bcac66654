import type { EntityManager } from 'typeorm';
import { AttributeGroup } from '@pim/resources';
import { declaredRecord, refuseInUse, requireLive } from '@pim/records';
import { attributesInGroup } from '../repositories/attributes.repository';
import { familiesWithGroup } from '../repositories/families.repository';
import { productsNaming } from '../repositories/products.repository';
import { AttributeGroupEntity } from '../entities/attribute-group.entity';

/** A group's category must be a live category (400 naming it); it stays locked until the write commits. */
async function checkCategory(m: EntityManager, next: AttributeGroupEntity): Promise<void> {
  if (next.category_id === null) return;
  await requireLive(m, { table: 'categories', collection: 'categories' }, [
    { field: 'category_id', id: next.category_id },
  ]);
}

/**
 * A group that live attributes belong to, or live families or products name, cannot be deleted (409 with how
 * many). Their writes hold a share lock on the groups they name, so none can join between the
 * count and the commit.
 */
async function refuseDeleteInUse(m: EntityManager, group: AttributeGroupEntity): Promise<void> {
  const attributes = await attributesInGroup(m, group._id);
  const families = await familiesWithGroup(m, group._id);
  const products = await productsNaming(m, 'attribute_groups', group._id);
  refuseInUse('attribute group', group.key, [
    { count: attributes, collection: 'attributes', query: { group_ids: group._id } },
    { count: families, collection: 'families', query: { attribute_groups: group._id } },
    { count: products, collection: 'products', query: { attribute_groups: group._id } },
  ]);
}

/**
 * Attribute groups: named by `key`, searched by name. `users_groups` live in the
 * workflow app, which does not exist yet: only their form is checked (each group once).
 */
export const attributeGroupResource = declaredRecord(AttributeGroup, {
  entity: AttributeGroupEntity,
  handle: 'key',
  hooks: { beforeWrite: checkCategory, beforeDelete: refuseDeleteInUse },
});
