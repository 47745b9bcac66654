import type { EntityManager } from 'typeorm';
import { ConflictError, ValidationError, withLinks } from '@pim/errors';
import { RetryWrite } from '@pim/records';
import type { Emit, LockRequest } from '@pim/records';
import type { CategoryEntity } from '../entities/category.entity';
import { childrenOf, liveCategory, moveDescendants, treeOfCategory } from '../repositories/categories.repository';
import { isLiveTree, lockTrees } from '../repositories/category-trees.repository';

// Lock order of every category write: the tree row(s) first, then category rows. A create takes
// its tree FOR SHARE (creates in one tree run side by side); an update, a move or a delete takes
// FOR UPDATE. So while a write holds its tree, no other write can move, delete or hang categories
// under the ones it reads, and the parent read by a create cannot vanish before it commits.

/** Takes the tree locks of a category write before the category's own row lock. */
export async function lockCategoryWrite(m: EntityManager, request: LockRequest): Promise<void> {
  if (request.kind === 'create') {
    await lockTrees(m, [request.input.category_tree_id as string], 'SHARE');
    return;
  }
  const seen = await treeOfCategory(m, request.id);
  if (seen === null) return; // the service answers 404
  const target =
    request.kind === 'update' && typeof request.given.category_tree_id === 'string'
      ? request.given.category_tree_id
      : undefined;
  await lockTrees(m, [seen, target], 'UPDATE');
  const now = await treeOfCategory(m, request.id, true);
  // Moved to another tree between the first read and the tree lock: the lock guards the wrong tree.
  if (now !== null && now !== seen) throw new RetryWrite('the category moved to another tree meanwhile');
}

function sameIds(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

/**
 * Checks where a category is being put and computes its path: the tree must be live; a parent
 * must be live, in the same tree, and neither the category itself nor one of its descendants
 * (409 naming both).
 */
export async function placeCategory(
  m: EntityManager,
  next: CategoryEntity,
  prev: CategoryEntity | null,
): Promise<void> {
  if (!(await isLiveTree(m, next.category_tree_id))) {
    throw new ValidationError(`No category tree with _id '${next.category_tree_id}'`, {
      title: 'Unknown category tree',
      ...withLinks((link) => `Use the _id of a category tree from ${link({ collection: 'category_trees' })}`),
      details: [{ field: 'category_tree_id', message: 'must name a live category tree' }],
    });
  }
  const placed = prev !== null && prev.parent_id === next.parent_id && prev.category_tree_id === next.category_tree_id;
  if (placed) return;
  if (next.parent_id === null) {
    next.path = [next._id];
    return;
  }
  if (next.parent_id === next._id) {
    throw new ConflictError(`Category '${next.code}' (${next._id}) cannot be its own parent`, {
      title: 'Category cycle',
      solution: 'Choose another parent_id, or remove it to put the category at the top of its tree',
      details: [{ field: 'parent_id', message: 'is the category itself' }],
    });
  }
  const parent = await liveCategory(m, next.parent_id);
  if (!parent) {
    throw new ValidationError(`No category with _id '${next.parent_id}'`, {
      title: 'Unknown parent category',
      solution: 'Use the _id of a live category of the same tree',
      details: [{ field: 'parent_id', message: 'must name a live category' }],
    });
  }
  if (parent.category_tree_id !== next.category_tree_id) {
    throw new ValidationError(
      `The parent '${parent.code}' (${parent._id}) is in category tree ${parent.category_tree_id}, not ${next.category_tree_id}`,
      {
        title: 'Parent in another tree',
        solution: "Give a parent from the same tree, or move the category to the parent's tree",
        details: [{ field: 'parent_id', message: `is in category tree ${parent.category_tree_id}` }],
      },
    );
  }
  if (parent.path.includes(next._id)) {
    throw new ConflictError(
      `Category '${next.code}' (${next._id}) cannot move under '${parent.code}' (${parent._id}), which is one of its own descendants`,
      {
        title: 'Category cycle',
        solution: `Choose a parent outside the subtree of '${next.code}', or move '${parent.code}' out of it first`,
        details: [
          {
            field: 'parent_id',
            message: `'${parent.code}' (${parent._id}) is a descendant of '${next.code}' (${next._id})`,
          },
        ],
      },
    );
  }
  next.path = [...parent.path, next._id];
}

/**
 * Moves the live descendants of a category that moved: their paths follow its new path, and when
 * its tree changed their tree changes too (a visible change: version + 1 and an event each).
 */
export async function moveSubtree(
  m: EntityManager,
  next: CategoryEntity,
  prev: CategoryEntity,
  emit: Emit<CategoryEntity>,
): Promise<void> {
  const treeChanged = prev.category_tree_id !== next.category_tree_id;
  if (!treeChanged && sameIds(prev.path, next.path)) return;
  const moved = await moveDescendants(m, next, treeChanged, next.updated_at);
  for (const record of moved) await emit('updated', record);
}

/** A category with live children cannot be deleted (409 with how many). */
export async function refuseDeleteWithChildren(m: EntityManager, category: CategoryEntity): Promise<void> {
  const n = await childrenOf(m, category._id);
  if (n > 0) {
    throw new ConflictError(`Category '${category.code}' has ${n} live ${n === 1 ? 'child' : 'children'}`, {
      title: 'Category has children',
      ...withLinks(
        (link) =>
          `Delete or move its children first (${link({ collection: 'categories', query: { parent_id: category._id } })})`,
      ),
      details: [{ field: '_id', message: `${n} live child ${n === 1 ? 'category' : 'categories'}` }],
    });
  }
}
