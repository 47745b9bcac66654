import type { EntityManager } from 'typeorm';
import { AttributeGroup, type AttributeGroupInput, type AttributeGroupView } from '@pim/resources';
import { declaredRecord, refuseInUse, requireLive, type RecordResource } from '@pim/records';
import { requireUsersGroups, type UsersGroupsDirectory } from '../links/users-groups.directory';
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
 * Attribute groups: named by `key`, searched by name. The users groups a write adds to
 * `users_groups` must exist in the workflow app (asked over gRPC; 503 while it does not answer).
 */
export function attributeGroupResource(
  directory: UsersGroupsDirectory,
): RecordResource<AttributeGroupEntity, AttributeGroupView, AttributeGroupInput> {
  return declaredRecord(AttributeGroup, {
    entity: AttributeGroupEntity,
    handle: 'key',
    hooks: {
      async beforeWrite(m, next, prev) {
        await checkCategory(m, next);
        await requireUsersGroups(
          directory,
          next.users_groups.map((g, i) => ({ field: `users_groups.${i}._id`, id: g._id })),
          (prev?.users_groups ?? []).map((g) => g._id),
        );
      },
      beforeDelete: refuseDeleteInUse,
    },
  });
}
