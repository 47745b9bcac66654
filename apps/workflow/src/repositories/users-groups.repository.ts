import type { EntityManager } from 'typeorm';

/** What a user's live groups grant. */
export interface UserAccess {
  /** The live groups that list the user, by id, sorted. */
  group_ids: string[];
  /** Whether one of them sees every product. */
  full_product_access: boolean;
}

/** Queries over users groups the record engine does not run: which groups list a user. */
export const usersGroupsRepository = {
  /** The live groups listing the user (the members' GIN index answers it), read now. */
  async accessOf(m: EntityManager, userId: string): Promise<UserAccess> {
    const rows: { _id: string; has_full_product_access: boolean }[] = await m.query(
      `SELECT _id, has_full_product_access FROM users_groups
       WHERE deleted = false AND users @> $1::jsonb ORDER BY _id`,
      [JSON.stringify([{ id: userId }])],
    );
    return {
      group_ids: rows.map((r) => r._id),
      full_product_access: rows.some((r) => r.has_full_product_access),
    };
  },
};
