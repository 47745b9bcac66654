import type { EntityManager } from 'typeorm';
import { isId } from '@pim/ids';
import { CategoryTreeEntity } from '../entities/category-tree.entity';

// Every query over `category_trees` besides the record engine's own.

/**
 * Locks category tree rows, sorted by id (so two writes that need the same two trees take them in
 * the same order): FOR SHARE or FOR UPDATE, until the transaction ends. Ids that are not ids are skipped.
 */
export async function lockTrees(
  m: EntityManager,
  ids: (string | undefined)[],
  mode: 'SHARE' | 'UPDATE',
): Promise<void> {
  const wanted = [...new Set(ids.filter((id): id is string => isId(id)))].sort();
  if (wanted.length === 0) return;
  await m.query(`SELECT "_id" FROM "category_trees" WHERE "_id" = ANY($1) ORDER BY "_id" FOR ${mode}`, [wanted]);
}

/** Whether a live category tree has the id. */
export async function isLiveTree(m: EntityManager, id: string): Promise<boolean> {
  return (await m.findOne(CategoryTreeEntity, { select: { _id: true }, where: { _id: id, deleted: false } })) !== null;
}
