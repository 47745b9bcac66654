import type { EntityManager } from 'typeorm';
import { ConflictError } from '@pim/errors';
import { refuseInUse, requireLive } from '@pim/records';
import type { CategoryEntity } from '../category/category.entity';
import { AttributeGroupEntity } from '../attribute-group/attribute-group.entity';
import { AttributeEntity } from './attribute.entity';

/** Fields products' values depend on: they cannot change once the attribute exists. */
export const IMMUTABLE_FIELDS = ['key', 'type', 'unique', 'association'] as const;

/** A change of key, type, unique or association is a 409 naming each field, what it is and what was asked. */
export function refuseImmutableChanges(next: AttributeEntity, prev: AttributeEntity): void {
  const changed = IMMUTABLE_FIELDS.filter((f) => next[f] !== prev[f]);
  if (changed.length === 0) return;
  const what = changed.map((f) => `${f} is ${JSON.stringify(prev[f])}, not ${JSON.stringify(next[f])}`).join('; ');
  throw new ConflictError(`${changed.join(', ')} of attribute '${prev.key}' cannot change after creation (${what})`, {
    title: 'Attribute field cannot change',
    solution: `Products store values by key and shaped by type, unique and association: keep ${changed.join(', ')} as ${changed.length === 1 ? 'it is' : 'they are'}, or create another attribute`,
    details: changed.map((f) => ({
      field: f,
      message: `cannot change after creation (is ${JSON.stringify(prev[f])})`,
    })),
  });
}

/** Every linked group and category must be live (400 naming each missing id); they stay share-locked until commit. */
export async function requireLinks(m: EntityManager, next: AttributeEntity): Promise<void> {
  await requireLive(
    m,
    { table: 'attribute_groups', collection: 'attribute_groups' },
    next.groups.map((g, i) => ({ field: `groups.${i}._id`, id: g._id })),
  );
  await requireLive(
    m,
    { table: 'categories', collection: 'categories' },
    next.categories.map((c, i) => ({ field: `categories.${i}._id`, id: c._id })),
  );
}

/**
 * A category that live attributes or attribute groups point at cannot be deleted (409 with how
 * many). Their writes hold a share lock on it, so none can point at it between the count and the commit.
 */
export async function refuseDeleteLinkedCategory(m: EntityManager, category: CategoryEntity): Promise<void> {
  const attributes = await m
    .createQueryBuilder(AttributeEntity, 'a')
    .where('a.deleted = false')
    .andWhere('a.category_ids @> ARRAY[:id]::text[]', { id: category._id })
    .getCount();
  const groups = await m.count(AttributeGroupEntity, { where: { category_id: category._id, deleted: false } });
  refuseInUse('category', category.code, [
    { count: attributes, collection: 'attributes', query: { category_ids: category._id } },
    { count: groups, collection: 'attribute_groups', query: { category_id: category._id } },
  ]);
}
