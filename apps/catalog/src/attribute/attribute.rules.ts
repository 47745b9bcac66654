import type { EntityManager } from 'typeorm';
import { ConflictError } from '@pim/errors';
import { requireLive } from '@pim/records';
import { AttributeEntity } from '../entities/attribute.entity';

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
