import type { EntityManager } from 'typeorm';
import { AttributeGroupEntity } from '../entities/attribute-group.entity';

// Every query over `attribute_groups` besides the record engine's own.

/** How many live attribute groups belong to a category. */
export function groupsInCategory(m: EntityManager, categoryId: string): Promise<number> {
  return m.count(AttributeGroupEntity, { where: { category_id: categoryId, deleted: false } });
}

/** The live attribute groups whose `users_groups` list the user among their `not_allowed_users`. */
export async function groupsHiddenFrom(m: EntityManager, userId: string): Promise<string[]> {
  const rows: { _id: string }[] = await m.query(
    `SELECT "_id" FROM "attribute_groups" WHERE "deleted" = false AND "users_groups" @> $1::jsonb`,
    [JSON.stringify([{ not_allowed_users: [userId] }])],
  );
  return rows.map((r) => r._id);
}
