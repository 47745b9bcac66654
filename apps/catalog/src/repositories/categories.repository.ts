import { In, type EntityManager } from 'typeorm';
import { CategoryEntity } from '../entities/category.entity';

// Every query over `categories` besides the record engine's own.

/** The tree a live category is in (null when none is live with the id); with `lock`, the row is locked for update. */
export async function treeOfCategory(m: EntityManager, id: string, lock = false): Promise<string | null> {
  const row = await m.findOne(CategoryEntity, {
    select: { _id: true, category_tree_id: true },
    where: { _id: id, deleted: false },
    ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
  });
  return row?.category_tree_id ?? null;
}

/** A live category by id. */
export function liveCategory(m: EntityManager, id: string): Promise<CategoryEntity | null> {
  return m.findOne(CategoryEntity, { where: { _id: id, deleted: false } });
}

/** The tree of each live category among `ids`, share-locked (in id order) until the transaction ends. */
export async function liveCategoryTrees(m: EntityManager, ids: string[]): Promise<Map<string, string>> {
  const wanted = [...new Set(ids)].sort();
  if (wanted.length === 0) return new Map();
  const rows: { _id: string; category_tree_id: string }[] = await m.query(
    `SELECT "_id", "category_tree_id" FROM "categories" WHERE "_id" = ANY($1) AND "deleted" = false ORDER BY "_id" FOR SHARE`,
    [wanted],
  );
  return new Map(rows.map((r) => [r._id, r.category_tree_id]));
}

/** How many live children a category has. */
export function childrenOf(m: EntityManager, id: string): Promise<number> {
  return m.count(CategoryEntity, { where: { parent_id: id, deleted: false } });
}

/** How many live categories a tree holds. */
export function categoriesInTree(m: EntityManager, treeId: string): Promise<number> {
  return m.count(CategoryEntity, { where: { category_tree_id: treeId, deleted: false } });
}

/**
 * Moves the live descendants of a category that moved: their paths follow its new `path` and
 * they go to its tree; with `visible` (the tree changed) each gets version + 1 and `updatedAt`.
 * Returns the descendants moved when `visible` (as stored now, by `_id`, for their events), else none.
 */
export async function moveDescendants(
  m: EntityManager,
  moved: Pick<CategoryEntity, '_id' | 'path' | 'category_tree_id'>,
  visible: boolean,
  updatedAt: Date,
): Promise<CategoryEntity[]> {
  const rows: { _id: string }[] = await m.query(
    `WITH moved AS (
       UPDATE "categories"
          SET "path" = $1::text[] || "path"[array_position("path", $2::text) + 1:],
              "category_tree_id" = $3,
              "version" = "version" + $4::int,
              "updated_at" = CASE WHEN $4::int = 1 THEN $5::timestamptz ELSE "updated_at" END
        WHERE "path" @> ARRAY[$2::text] AND "_id" <> $2::text AND "deleted" = false
    RETURNING "_id")
     SELECT "_id" FROM moved`,
    [moved.path, moved._id, moved.category_tree_id, visible ? 1 : 0, updatedAt],
  );
  if (!visible || rows.length === 0) return [];
  return m.find(CategoryEntity, { where: { _id: In(rows.map((r) => r._id)) }, order: { _id: 'ASC' } });
}
