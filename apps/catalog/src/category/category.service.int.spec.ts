import 'reflect-metadata';
import { ConflictError, ValidationError } from '@pim/errors';
import { parseListQuery } from '@pim/query';
import { categoryListDecl, type CategoryTreeView, type CategoryView } from '@pim/resources';
import { useCatalogContext, type CatalogTestContext } from '../testing/catalog.context';

const MISSING = '6740a1b2c3d4e5f601234567';

// Trees of categories: references, cycles, moving subtrees, deleting, and the subtree filter.
describe('categories (real Postgres)', () => {
  let ctx: CatalogTestContext;
  useCatalogContext((c) => (ctx = c));
  let tree: CategoryTreeView;

  beforeEach(async () => {
    tree = await ctx.newCategoryTree({ code: 'master' });
  });

  const svc = () => ctx.services.categories;
  const codes = async (params: Record<string, string>) =>
    (await svc().list(parseListQuery(categoryListDecl, { sort: 'code', ...params }))).data.map((c) => c.code);

  /** root ─ a ─ a1 ─ a11, root ─ b: returns them by code. */
  async function buildTree(): Promise<Record<string, CategoryView>> {
    const root = await ctx.newCategory({ code: 'root', category_tree_id: tree._id });
    const a = await ctx.newCategory({ code: 'a', category_tree_id: tree._id, parent_id: root._id });
    const a1 = await ctx.newCategory({ code: 'a1', category_tree_id: tree._id, parent_id: a._id });
    const a11 = await ctx.newCategory({ code: 'a11', category_tree_id: tree._id, parent_id: a1._id });
    const b = await ctx.newCategory({ code: 'b', category_tree_id: tree._id, parent_id: root._id });
    return { root, a, a1, a11, b };
  }

  it('creates categories at the top of a tree and under a parent', async () => {
    const { root, a } = await buildTree();
    expect(root).toMatchObject({ category_tree_id: tree._id, version: 1 });
    expect(root).not.toHaveProperty('parent_id');
    expect(a).toMatchObject({ category_tree_id: tree._id, parent_id: root._id });
    expect(Object.keys(a)).toEqual([
      '_id',
      'code',
      'name',
      'description',
      'enabled',
      'tags',
      'category_tree_id',
      'parent_id',
      'version',
      'created_at',
      'updated_at',
    ]);
  });

  it('refuses a missing tree, a missing parent and a parent of another tree (400 naming the field)', async () => {
    const other = await ctx.newCategoryTree({ code: 'other' });
    const foreign = await ctx.newCategory({ code: 'foreign', category_tree_id: other._id });
    const cases = [
      { input: { category_tree_id: MISSING }, field: 'category_tree_id' },
      { input: { category_tree_id: tree._id, parent_id: MISSING }, field: 'parent_id' },
      { input: { category_tree_id: tree._id, parent_id: foreign._id }, field: 'parent_id' },
    ];
    for (const { input, field } of cases) {
      const err = await svc()
        .create({ code: 'x', name: { en: 'X' }, ...input })
        .catch((e) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect(err.details[0].field).toBe(field);
    }
    const gone = await ctx.newCategoryTree({ code: 'gone' });
    await ctx.services.categoryTrees.remove(gone._id);
    await expect(svc().create({ code: 'y', name: { en: 'Y' }, category_tree_id: gone._id })).rejects.toBeInstanceOf(
      ValidationError,
    );
    expect(
      (await ctx.events()).filter((e) => e.type === 'categories.created').map((e) => (e.data as CategoryView).code),
    ).toEqual(['foreign']);
  });

  it('never makes a cycle: moving under itself or a descendant is a 409 naming both', async () => {
    const { a, a11 } = await buildTree();
    const self = await svc()
      .patch(a._id, { parent_id: a._id })
      .catch((e) => e);
    expect(self).toBeInstanceOf(ConflictError);
    expect(self.message).toContain("'a'");
    const under = await svc()
      .patch(a._id, { parent_id: a11._id })
      .catch((e) => e);
    expect(under).toBeInstanceOf(ConflictError);
    expect(under.message).toContain(`'a' (${a._id})`);
    expect(under.message).toContain(`'a11' (${a11._id})`);
    expect((await svc().get(a._id)).version).toBe(1);
  });

  it('returns a category and all its descendants with categories_in_children, also for several subtrees', async () => {
    const { root, a, a1, b } = await buildTree();
    expect(await codes({ categories_in_children: a._id })).toEqual(['a', 'a1', 'a11']);
    expect(await codes({ categories_in_children: root._id })).toEqual(['a', 'a1', 'a11', 'b', 'root']);
    expect(await codes({ categories_in_children_in: `${a1._id},${b._id}` })).toEqual(['a1', 'a11', 'b']);
    expect(await codes({ categories_in_children_nin: a._id })).toEqual(['b', 'root']);
    expect(await codes({ categories_in_children: a._id, _search: 'a1' })).toEqual(['a1', 'a11']);
    expect(await codes({ parent_id: root._id })).toEqual(['a', 'b']);
    expect(await codes({ parent_id_exists: 'false' })).toEqual(['root']);
    expect(await codes({ categories_in_children: MISSING })).toEqual([]);
    expect(() => parseListQuery(categoryListDecl, { sort: 'categories_in_children' })).toThrow(ValidationError);
  });

  it('moves a subtree within its tree: descendants follow, only the moved category changes', async () => {
    const { a, a1, a11, b } = await buildTree();
    const moved = await svc().patch(a1._id, { parent_id: b._id });
    expect(moved).toMatchObject({ parent_id: b._id, version: 2 });
    expect(await codes({ categories_in_children: b._id })).toEqual(['a1', 'a11', 'b']);
    expect(await codes({ categories_in_children: a._id })).toEqual(['a']);
    // Moving a11 under a proves the stored paths were rewritten: a11 is no longer under a1's old place.
    await svc().patch(a11._id, { parent_id: a._id });
    expect(await codes({ categories_in_children: a._id })).toEqual(['a', 'a11']);
    expect((await svc().get(a11._id)).version).toBe(2);
    const types = (await ctx.events()).map((e) => `${e.type}:${(e.data as CategoryView).code}`);
    expect(types.filter((t) => t.startsWith('categories.updated'))).toEqual([
      'categories.updated:a1',
      'categories.updated:a11',
    ]);
  });

  it('moves a subtree to another tree: every descendant changes tree, version and gets its event', async () => {
    const { a, a1, a11, b } = await buildTree();
    const other = await ctx.newCategoryTree({ code: 'other' });
    const refused = await svc()
      .patch(a._id, { category_tree_id: other._id })
      .catch((e) => e);
    expect(refused).toBeInstanceOf(ValidationError); // its parent stays in the old tree
    const moved = await svc().patch(a._id, { category_tree_id: other._id, parent_id: null });
    expect(moved).toMatchObject({ category_tree_id: other._id, version: 2 });
    expect(moved).not.toHaveProperty('parent_id');
    for (const c of [a1, a11])
      expect(await svc().get(c._id)).toMatchObject({ category_tree_id: other._id, version: 2 });
    expect((await svc().get(b._id)).category_tree_id).toBe(tree._id);
    expect(await codes({ category_tree_id: other._id })).toEqual(['a', 'a1', 'a11']);
    expect(await codes({ categories_in_children: a._id })).toEqual(['a', 'a1', 'a11']);

    const updates = (await ctx.events()).filter((e) => e.type === 'categories.updated');
    expect(updates.map((e) => (e.data as CategoryView).code)).toEqual(['a', 'a1', 'a11']);
    expect(updates.every((e) => (e.data as CategoryView).category_tree_id === other._id)).toBe(true);
  });

  it('refuses to delete a category with live children (409 with how many) and a tree with categories', async () => {
    const { root, a11, b } = await buildTree();
    const err = await svc()
      .remove(root._id)
      .catch((e) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect(err.message).toContain('2 live children');
    await expect(svc().remove(a11._id)).resolves.toMatchObject({ code: 'a11' });
    await expect(svc().remove(b._id)).resolves.toMatchObject({ code: 'b' });
    const treeErr = await ctx.services.categoryTrees.remove(tree._id).catch((e) => e);
    expect(treeErr).toBeInstanceOf(ConflictError);
    expect(treeErr.message).toContain('3 live categories');
  });

  it('serializes concurrent moves so two crossing moves never make a cycle', async () => {
    const { root } = await buildTree();
    for (let round = 0; round < 5; round++) {
      const x = await ctx.newCategory({ category_tree_id: tree._id, parent_id: root._id });
      const y = await ctx.newCategory({ category_tree_id: tree._id, parent_id: root._id });
      const settled = await Promise.allSettled([
        svc().patch(x._id, { parent_id: y._id }),
        svc().patch(y._id, { parent_id: x._id }),
      ]);
      expect(settled.map((s) => s.status).sort()).toEqual(['fulfilled', 'rejected']);
      expect((settled.find((s) => s.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(
        ConflictError,
      );
    }
    // Every path still leads to the root: no category is its own ancestor.
    const rows: { n: number }[] = await ctx.ds.query(
      `SELECT count(*)::int AS n FROM catalog.categories WHERE deleted = false AND path[1] <> $1`,
      [root._id],
    );
    expect(rows[0].n).toBe(0);
  });

  it('never loses a child to a concurrent delete of its parent', async () => {
    const { root } = await buildTree();
    for (let round = 0; round < 5; round++) {
      const parent = await ctx.newCategory({ category_tree_id: tree._id, parent_id: root._id });
      const [removed, created] = await Promise.allSettled([
        svc().remove(parent._id),
        ctx.newCategory({ category_tree_id: tree._id, parent_id: parent._id }),
      ]);
      // Either the child came first (the delete is refused) or the delete did (the child is refused).
      expect(removed.status === 'fulfilled').toBe(created.status === 'rejected');
    }
    const orphans: { n: number }[] = await ctx.ds.query(
      `SELECT count(*)::int AS n FROM catalog.categories c JOIN catalog.categories p ON p._id = c.parent_id WHERE c.deleted = false AND p.deleted = true`,
    );
    expect(orphans[0].n).toBe(0);
  });
});
