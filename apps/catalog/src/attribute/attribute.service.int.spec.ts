import 'reflect-metadata';
import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '@pim/errors';
import { runWithContext } from '@pim/logging';
import { parseListQuery } from '@pim/query';
import { attributeGroupListDecl, attributeListDecl, attributeOptionListDecl, type AttributeView } from '@pim/resources';
import { useCatalogContext, type CatalogTestContext } from '../testing/catalog.context';

const MISSING = '6740a1b2c3d4e5f601234567';
const as = <T>(user: string, fn: () => Promise<T>) =>
  runWithContext({ requestId: `req-${user}`, actor: { user_name: user } }, fn);

// Attributes and attribute groups against the real Postgres: the rules of the interface
// and docs/platform/rules.md (attribute types), their references, their events.
describe('attributes and attribute groups (real Postgres)', () => {
  let ctx: CatalogTestContext;
  useCatalogContext((c) => (ctx = c));

  const attributes = () => ctx.services.attributes;
  const groups = () => ctx.services.attributeGroups;
  const keys = async (params: Record<string, string>) =>
    (await attributes().list(parseListQuery(attributeListDecl, { sort: 'key', ...params }))).data.map((a) => a.key);

  describe('attribute groups', () => {
    it('creates with defaults, shows every field of the interface in order, and keeps keys unique among live groups', async () => {
      const category = await ctx.newCategory();
      const access = [{ _id: await ctx.newUsersGroup(), not_allowed_users: ['u1', 'u2'] }];
      const group = await as('Ana', () =>
        groups().create({ key: 'technical', name: { pt: 'Técnico' }, category_id: category._id, users_groups: access }),
      );
      expect(group).toEqual({
        _id: expect.stringMatching(/^[0-9a-f]{24}$/),
        category_id: category._id,
        key: 'technical',
        name: { pt: 'Técnico' },
        description: {},
        sequence: 0,
        enabled: true,
        users_groups: access,
        tags: [],
        version: 1,
        created_at: expect.any(String),
        updated_at: group.created_at,
        created_by_name: 'Ana',
      });
      const taken = await groups()
        .create({ key: 'technical', name: { en: 'Again' } })
        .catch((e) => e);
      expect(taken).toBeInstanceOf(ConflictError);
      expect(taken.message).toBe("Another live attribute group already has the key 'technical'");
      expect(taken.details).toEqual([{ field: 'key', message: 'already taken' }]);

      const plain = await groups().patch(group._id, { category_id: null, sequence: 3 });
      expect(plain).not.toHaveProperty('category_id');
      expect(plain.sequence).toBe(3);
    });

    it('never leaves a live attribute linked to a deleted group, however a link and the delete interleave', async () => {
      for (let i = 0; i < 5; i++) {
        const group = await ctx.newAttributeGroup();
        const [linked, deleted] = await Promise.allSettled([
          ctx.newAttribute({ groups: [{ _id: group._id }] }),
          groups().remove(group._id),
        ]);
        expect([linked.status, deleted.status].sort()).toEqual(['fulfilled', 'rejected']);
        const reason = (
          linked.status === 'rejected' ? linked.reason : (deleted as PromiseRejectedResult).reason
        ) as Error;
        expect(reason).toBeInstanceOf(linked.status === 'rejected' ? ValidationError : ConflictError);
      }
    });

    it('refuses a missing category (400 naming it), a name without languages and malformed users groups', async () => {
      const missing = await groups()
        .create({ key: 'g', name: { en: 'G' }, category_id: MISSING })
        .catch((e) => e);
      expect(missing).toBeInstanceOf(ValidationError);
      expect(missing.message).toContain(MISSING);
      expect(missing.details).toEqual([{ field: 'category_id', message: `no live category has _id '${MISSING}'` }]);
      const bad = await groups()
        .create({ key: 'g', name: {}, users_groups: [{ _id: 'x', not_allowed_users: 'u1' }, { _id: MISSING }] })
        .catch((e) => e);
      expect(bad).toBeInstanceOf(ValidationError);
      expect(bad.details.map((d: { field: string }) => d.field).sort()).toEqual([
        'name',
        'users_groups.0._id',
        'users_groups.0.not_allowed_users',
        'users_groups.1.not_allowed_users',
      ]);
      const twice = await groups()
        .create({
          key: 'g',
          name: { en: 'G' },
          users_groups: [
            { _id: MISSING, not_allowed_users: [] },
            { _id: MISSING, not_allowed_users: [] },
          ],
        })
        .catch((e) => e);
      expect(twice.details).toEqual([{ field: 'users_groups', message: 'must name each users group once' }]);
      // Users groups live in the workflow app: one it does not know is a 400 naming it.
      const unknown = await groups()
        .create({ key: 'g', name: { en: 'G' }, users_groups: [{ _id: MISSING, not_allowed_users: [] }] })
        .catch((e) => e);
      expect(unknown).toBeInstanceOf(ValidationError);
      expect(unknown.details).toEqual([
        { field: 'users_groups.0._id', message: `no live users group has _id '${MISSING}'` },
      ]);
    });

    it('lists: _search over name (accents folded), filters on category and enabled, sort by sequence; batch-gets by ids and keys', async () => {
      const category = await ctx.newCategory();
      const a = await ctx.newAttributeGroup({
        key: 'marketing',
        name: { pt: 'Comunicação' },
        sequence: 2,
        category_id: category._id,
      });
      const b = await ctx.newAttributeGroup({
        key: 'logistics',
        name: { en: 'Logistics' },
        sequence: 1,
        enabled: false,
      });
      const list = async (params: Record<string, string>) =>
        (await groups().list(parseListQuery(attributeGroupListDecl, params))).data.map((g) => g.key);
      expect(await list({ _search: 'COMUNICACAO' })).toEqual(['marketing']);
      expect(await list({ _search: 'marketing' })).toEqual([]); // the key is not searchable
      expect(await list({ category_id: category._id })).toEqual(['marketing']);
      expect(await list({ enabled: 'false' })).toEqual(['logistics']);
      expect(await list({ sort: 'sequence' })).toEqual(['logistics', 'marketing']);
      expect((await groups().batchGet([a._id], ['logistics', 'nope'])).map((g) => g._id)).toEqual(
        [a._id, b._id].sort(),
      );
    });

    it('cannot be deleted while live attributes belong to it (409 with how many); can once they leave', async () => {
      const group = await ctx.newAttributeGroup({ key: 'dims' });
      const width = await ctx.newAttribute({ key: 'width', groups: [{ _id: group._id, required: true }] });
      await ctx.newAttribute({ key: 'height', groups: [{ _id: group._id }] });
      const refused = await groups()
        .remove(group._id)
        .catch((e) => e);
      expect(refused).toBeInstanceOf(ConflictError);
      expect(refused.message).toBe("The attribute group 'dims' is still used by 2 live attributes");
      expect(refused.solution).toContain(`group_ids=${group._id}`);
      await attributes().patch(width._id, { groups: null });
      await attributes().remove((await attributes().batchGet([], ['height']))[0]._id);
      await expect(groups().remove(group._id)).resolves.toMatchObject({ key: 'dims', version: 2 });
    });
  });

  describe('attributes', () => {
    it('creates with every field of the interface, in order, with defaults for what is not given', async () => {
      const minimal = await ctx.newAttribute({ key: 'note' });
      expect(minimal).toEqual({
        _id: expect.any(String),
        groups: [],
        categories: [],
        key: 'note',
        name: {},
        description: {},
        type: 'text',
        type_config: {},
        unique: false,
        required: false,
        sequence: 0,
        association: 'product',
        enabled: true,
        protected_by_lgpd: false,
        tags: [],
        version: 1,
        created_at: expect.any(String),
        updated_at: minimal.created_at,
      });

      const group = await ctx.newAttributeGroup();
      const category = await ctx.newCategory();
      const full = {
        groups: [{ _id: group._id, required: true }],
        categories: [{ _id: category._id, required: false }],
        key: 'voltage',
        name: { pt: 'Tensão', en: 'Voltage' },
        description: { en: 'Nominal voltage' },
        type: 'number',
        type_config: {
          min: 0,
          max: 380,
          type: 'integer',
          enable_ia_generation: true,
          prompt_ia_instruction: 'Read it from the manual',
        },
        unique: false,
        required: true,
        sequence: 5,
        association: 'product_and_sku',
        enabled: false,
        protected_by_lgpd: true,
        tags: ['electric'],
      };
      const created = await attributes().create(full);
      expect(created).toEqual({
        _id: created._id,
        ...full,
        version: 1,
        created_at: created.created_at,
        updated_at: created.created_at,
      });
      expect(await attributes().get(created._id)).toEqual(created);
    });

    it('refuses a bad type_config with a 400 naming the key, and keys of another type', async () => {
      const bad = await ctx
        .newAttribute({ key: 'title', type: 'text', type_config: { min_length: 10, max_length: 5 } })
        .catch((e) => e);
      expect(bad).toBeInstanceOf(ValidationError);
      expect(bad.message).toBe('type_config.max_length must be ≥ min_length (10)');
      expect(bad.details).toEqual([{ field: 'type_config.max_length', message: 'must be ≥ min_length (10)' }]);
      const foreign = await ctx
        .newAttribute({ key: 'weight', type: 'metric', type_config: { units: ['kg'], decimals: 2 } })
        .catch((e) => e);
      expect(foreign.details[0].field).toBe('type_config.decimals');
      const regex = await ctx.newAttribute({ key: 'sku_code', type_config: { pattern: '(' } }).catch((e) => e);
      expect(regex.details[0].field).toBe('type_config.pattern');
      await expect(ctx.newAttribute({ key: 'taken' })).resolves.toBeDefined();
      const taken = await ctx.newAttribute({ key: 'taken' }).catch((e) => e);
      expect(taken).toBeInstanceOf(ConflictError);
      expect(taken.message).toBe("Another live attribute already has the key 'taken'");
    });

    it('never changes key, type, unique or association: 409 naming each field and why', async () => {
      const color = await ctx.newAttribute({ key: 'color', type: 'select', association: 'sku' });
      const typed = await attributes()
        .patch(color._id, { type: 'multiselect' })
        .catch((e) => e);
      expect(typed).toBeInstanceOf(ConflictError);
      expect(typed.message).toBe(
        'type of attribute \'color\' cannot change after creation (type is "select", not "multiselect")',
      );
      expect(typed.details).toEqual([{ field: 'type', message: 'cannot change after creation (is "select")' }]);
      const several = await attributes()
        .replace(color._id, {
          key: 'colour',
          type: 'select',
          unique: false,
          association: 'product',
          protected_by_lgpd: false,
        })
        .catch((e) => e);
      expect(several).toBeInstanceOf(ConflictError);
      expect(several.details.map((d: { field: string }) => d.field)).toEqual(['key', 'association']);
      const unique = await attributes()
        .patch((await ctx.newAttribute({ key: 'ean', unique: true }))._id, { unique: null })
        .catch((e) => e);
      expect(unique.details).toEqual([{ field: 'unique', message: 'cannot change after creation (is true)' }]);
      // A PUT that repeats them, and patches of the other fields, go through.
      const replaced = await attributes().replace(color._id, {
        key: 'color',
        type: 'select',
        association: 'sku',
        protected_by_lgpd: true,
        name: { en: 'Color' },
      });
      expect(replaced).toMatchObject({ key: 'color', protected_by_lgpd: true, name: { en: 'Color' }, version: 2 });
      expect((await attributes().get(color._id)).version).toBe(2);
    });

    it('merge-patches name per language and type_config per key (null removes one), re-checking the result', async () => {
      const title = await ctx.newAttribute({
        key: 'title',
        name: { pt: 'Título' },
        type_config: { max_length: 80, pattern: '^\\S' },
      });
      const patched = await attributes().patch(
        title._id,
        { name: { en: 'Title' }, type_config: { pattern: null, min_length: 2 } },
        1,
      );
      expect(patched).toMatchObject({
        name: { pt: 'Título', en: 'Title' },
        type_config: { max_length: 80, min_length: 2 },
        version: 2,
      });
      expect(patched.type_config).not.toHaveProperty('pattern');
      const worse = await attributes()
        .patch(title._id, { type_config: { min_length: 100 } })
        .catch((e) => e);
      expect(worse.details).toEqual([{ field: 'type_config.max_length', message: 'must be ≥ min_length (100)' }]);
      await expect(attributes().patch(title._id, { protected_by_lgpd: null })).rejects.toBeInstanceOf(ValidationError);
      await expect(attributes().patch(title._id, { sequence: 1 }, 1)).rejects.toBeInstanceOf(PreconditionFailedError);
    });

    it('links only live groups and categories: a 400 names every missing id and where it was', async () => {
      const group = await ctx.newAttributeGroup();
      const category = await ctx.newCategory();
      const gone = await ctx.newAttributeGroup();
      await groups().remove(gone._id);
      const err = await ctx
        .newAttribute({
          groups: [{ _id: group._id }, { _id: gone._id }],
          categories: [{ _id: MISSING, required: true }, { _id: category._id }],
        })
        .catch((e) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect(err.details).toEqual([
        { field: 'groups.1._id', message: `no live attribute group has _id '${gone._id}'` },
      ]);
      const cat = await ctx
        .newAttribute({ categories: [{ _id: MISSING, required: true }, { _id: category._id }] })
        .catch((e) => e);
      expect(cat.details).toEqual([{ field: 'categories.0._id', message: `no live category has _id '${MISSING}'` }]);
      const twice = await ctx
        .newAttribute({ groups: [{ _id: group._id }, { _id: group._id, required: true }] })
        .catch((e) => e);
      expect(twice.details).toEqual([{ field: 'groups', message: 'must name each attribute group once' }]);
      expect((await ctx.events()).filter((e) => e.type === 'attributes.created')).toEqual([]);
    });

    it('keeps a linked category from being deleted (409 with how many attributes and groups)', async () => {
      const category = await ctx.newCategory({ code: 'shoes' });
      const attribute = await ctx.newAttribute({ categories: [{ _id: category._id, required: true }] });
      await ctx.newAttributeGroup({ category_id: category._id });
      const refused = await ctx.services.categories.remove(category._id).catch((e) => e);
      expect(refused).toBeInstanceOf(ConflictError);
      expect(refused.message).toBe("The category 'shoes' is still used by 1 live attribute and 1 live attribute group");
      await attributes().remove(attribute._id);
      expect((await ctx.services.categories.remove(category._id).catch((e) => e)).message).toBe(
        "The category 'shoes' is still used by 1 live attribute group",
      );
    });

    it('lists: _search over name and description, filters on type, links, booleans; sort; batch-gets by ids and keys', async () => {
      const group = await ctx.newAttributeGroup();
      const category = await ctx.newCategory();
      const a = await ctx.newAttribute({
        key: 'a',
        type: 'number',
        name: { pt: 'Pressão' },
        sequence: 3,
        groups: [{ _id: group._id }],
      });
      await ctx.newAttribute({
        key: 'b',
        type: 'text',
        description: { en: 'Café notes' },
        sequence: 1,
        categories: [{ _id: category._id }],
        protected_by_lgpd: true,
      });
      await ctx.newAttribute({
        key: 'c',
        type: 'select',
        sequence: 2,
        groups: [{ _id: group._id, required: true }],
        categories: [{ _id: category._id }],
      });
      expect(await keys({ _search: 'pressao' })).toEqual(['a']);
      expect(await keys({ _search: 'CAFE' })).toEqual(['b']);
      expect(await keys({ _search: 'a' })).toEqual(['a', 'b']); // the key is not searchable
      expect(await keys({ type_in: 'number,select' })).toEqual(['a', 'c']);
      expect(await keys({ group_ids: group._id })).toEqual(['a', 'c']);
      expect(await keys({ category_ids: category._id, group_ids: group._id })).toEqual(['c']);
      expect(await keys({ protected_by_lgpd: 'true' })).toEqual(['b']);
      expect(await keys({ sort: '-sequence' })).toEqual(['a', 'c', 'b']);
      const got = await attributes().batchGet([a._id], ['c', 'zz']);
      expect(got.map((x) => x.key).sort()).toEqual(['a', 'c']);
      await expect(attributes().batchGet(['bad'], [])).rejects.toBeInstanceOf(ValidationError);
    });

    it('cannot be deleted while products hold values of it; deleting takes its options along, each with an event', async () => {
      const color = await ctx.newAttribute({ key: 'color', type: 'select' });
      const red = await ctx.newOption(color._id, { value: 'red' });
      await ctx.newOption(color._id, { value: 'blue' });
      ctx.usage.productsWithAttribute = async (_m, attribute) => (attribute.key === 'color' ? 4 : 0);
      const refused = await attributes()
        .remove(color._id)
        .catch((e) => e);
      expect(refused).toBeInstanceOf(ConflictError);
      expect(refused.message).toBe("The attribute 'color' is still used by 4 live products");
      expect(
        (await ctx.services.attributeOptions.list(color._id, parseListQuery(attributeOptionListDecl, {}))).total,
      ).toBe(2);

      ctx.usage.productsWithAttribute = async () => 0;
      const deleted = await as('Bia', () => attributes().remove(color._id));
      expect(deleted).toMatchObject({ key: 'color', version: 2 });
      await expect(ctx.services.attributeOptions.get(color._id, red._id)).rejects.toBeInstanceOf(NotFoundError);
      const [row] = await ctx.ds.query(
        'SELECT deleted, deleted_by, version FROM catalog.attribute_options WHERE _id = $1',
        [red._id],
      );
      expect(row).toEqual({ deleted: true, deleted_by: 'Bia', version: 2 });
      const types = (await ctx.events()).map((e) => e.type);
      expect(types.slice(-3)).toEqual(['attributes.deleted', 'attribute_options.deleted', 'attribute_options.deleted']);
      await expect(ctx.newAttribute({ key: 'color' })).resolves.toMatchObject({ key: 'color' });
    });

    it('records one event per write with the attribute as the API shows it', async () => {
      const created = await as('Caio', () =>
        ctx.newAttribute({ key: 'ev', type: 'price', type_config: { currencies: ['BRL'] } }),
      );
      const patched = await attributes().patch(created._id, { tags: ['x'] });
      await expect(attributes().patch(created._id, { type: 'text', type_config: null })).rejects.toBeInstanceOf(
        ConflictError,
      );
      const deleted = await attributes().remove(created._id);
      const events = await ctx.events();
      expect(events.map((e) => e.type)).toEqual(['attributes.created', 'attributes.updated', 'attributes.deleted']);
      expect(events[0]).toMatchObject({
        collection: 'attributes',
        source: 'catalog',
        actor: { user_name: 'Caio' },
        data: created,
      });
      expect((events[1].data as AttributeView).tags).toEqual(patched.tags);
      // A deleted event says when and by whom besides the last state.
      const { deleted_at, deleted_by, ...last } = events[2].data as Record<string, unknown>;
      expect(last).toEqual(deleted);
      expect(deleted_at).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(deleted_by === null || typeof deleted_by === 'string').toBe(true);
    });
  });
});
