import type { EntityManager } from 'typeorm';
import { Family } from '@pim/resources';
import { requireLive } from '@pim/records';
import { declaredRecord } from '@pim/records';
import { refuseDeleteNamedByProducts } from '../product/product.usage';
import { FamilyEntity } from '../entities/family.entity';
import { enqueueCompleteness, familyScope } from '../completeness/completeness.jobs';

/**
 * A family's attribute groups and attributes must be live (400 naming each missing id); they
 * stay share-locked until the write commits, so none can be deleted meanwhile (their deletes
 * refuse while a live family names them).
 */
async function requireMembers(m: EntityManager, family: FamilyEntity): Promise<void> {
  await requireLive(
    m,
    { table: 'attribute_groups', collection: 'attribute_groups' },
    family.attribute_groups.map((id, i) => ({ field: `attribute_groups.${i}`, id })),
  );
  await requireLive(
    m,
    { table: 'attributes', collection: 'attributes' },
    family.attributes.map((a, i) => ({ field: `attributes.${i}._id`, id: a._id })),
  );
}

/** Families: attribute groups and attributes (with `required`), each a live record named once. */
export const familyResource = declaredRecord(Family, {
  entity: FamilyEntity,
  handle: 'code',
  hooks: {
    beforeWrite: requireMembers,
    // Its products' required attributes may have changed: their stored completeness is recomputed in the background.
    afterWrite: (m, next, prev) => enqueueCompleteness(m, `families.updated ${next._id}`, familyScope(prev, next)),
    beforeDelete: refuseDeleteNamedByProducts('family', 'family_id'),
  },
});
