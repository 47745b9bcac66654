import 'reflect-metadata';
import { ConflictError, NotFoundError, PreconditionFailedError, UnavailableError, ValidationError } from '@pim/errors';
import { createLogger, runWithContext } from '@pim/logging';
import { OutboxRelay } from '@pim/events';
import { applyListQuery, parseListQuery, type ListQuery } from '@pim/query';
import { brandListDecl, catalogListDecl, familyListDecl } from '@pim/resources';
import { createTestStream } from '@pim/testing';
import { BrandEntity } from './entities/brand.entity';
import { useCatalogContext, type CatalogTestContext } from './testing/catalog.context';
import { RecordService, storageDecl } from '@pim/records';
import { catalogResource } from './catalog/catalog.resource';
import { usersGroupsDirectory } from './links/users-groups.directory';
import { CATALOG_STORE } from './catalog.records';

const as = <T>(user: string, fn: () => Promise<T>) =>
  runWithContext({ requestId: `req-${user}`, actor: { user_id: '6740a1b2c3d4e5f601234567', user_name: user } }, fn);
const query = (decl: Parameters<typeof parseListQuery>[0], params: Record<string, string>): ListQuery =>
  parseListQuery(decl, params);
const ID = '6740a1b2c3d4e5f601234567';

// The rules every taxonomy resource shares, exercised on brands, families and catalogs.
describe('taxonomy services (real Postgres)', () => {
  let ctx: CatalogTestContext;
  useCatalogContext((c) => (ctx = c));

  it('creates with defaults and shows exactly the API fields', async () => {
    const brand = await as('Ana', () => ctx.services.brands.create({ code: 'acme', name: { pt: 'Acme Ltda' } }));
    expect(brand).toEqual({
      _id: expect.stringMatching(/^[0-9a-f]{24}$/),
      code: 'acme',
      name: { pt: 'Acme Ltda' },
      description: {},
      enabled: true,
      tags: [],
      version: 1,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: brand.created_at,
      created_by_name: 'Ana',
    });
    expect(await ctx.services.brands.get(brand._id)).toEqual(brand);
  });

  it('refuses bad input, listing every problem at once', async () => {
    const err = await ctx.services.brands
      .create({ code: 'bad\ncode', name: {}, description: { 'not a language': 'x' }, colour: 'red' })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    const fields = err.details.map((d: { field: string }) => d.field);
    expect(fields).toEqual(expect.arrayContaining(['code', 'name', 'colour']));
    expect(fields.some((f: string) => f.startsWith('description'))).toBe(true);
    await expect(ctx.services.brands.create({ code: 'x', name: { en: '' } })).rejects.toBeInstanceOf(ValidationError);
    await expect(
      ctx.services.families.create({
        code: 'f',
        name: { en: 'F' },
        attributes: [
          { _id: ID, required: true },
          { _id: ID, required: false },
        ],
      }),
    ).rejects.toThrow('must name each attribute once');
    await expect(
      ctx.services.catalogs.create({ code: 'c', name: { en: 'C' }, user_groups: ['nope'] }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('keeps codes unique among live records: 409 naming the code; deleting frees it and records who', async () => {
    const brand = await ctx.newBrand({ code: 'nike' });
    const taken = await ctx.services.brands.create({ code: 'nike', name: { en: 'Other' } }).catch((e) => e);
    expect(taken).toBeInstanceOf(ConflictError);
    expect(taken.message).toContain("'nike'");
    expect(taken.details).toEqual([{ field: 'code', message: 'already taken' }]);
    const other = await ctx.newBrand({ code: 'adidas' });
    await expect(ctx.services.brands.patch(other._id, { code: 'nike' })).rejects.toBeInstanceOf(ConflictError);

    const deleted = await as('Bia', () => ctx.services.brands.remove(brand._id));
    expect(deleted).toMatchObject({ _id: brand._id, version: 2 });
    await expect(ctx.services.brands.get(brand._id)).rejects.toBeInstanceOf(NotFoundError);
    await expect(ctx.services.brands.remove(brand._id)).rejects.toBeInstanceOf(NotFoundError);
    const [raw] = await ctx.ds.query(
      'SELECT deleted, deleted_by, deleted_at IS NOT NULL AS stamped FROM catalog.brands WHERE _id = $1',
      [brand._id],
    );
    expect(raw).toEqual({ deleted: true, deleted_by: 'Bia', stamped: true });
    expect((await ctx.services.brands.list(query(brandListDecl, {}))).total).toBe(1);
    await expect(ctx.newBrand({ code: 'nike' })).resolves.toMatchObject({ code: 'nike' });
  });

  it('replaces (omitted optional fields back to defaults) and merge-patches Translate per language', async () => {
    const brand = await ctx.newBrand({
      code: 'b1',
      name: { pt: 'Café', en: 'Coffee' },
      description: { en: 'Beans' },
      tags: ['hot'],
      enabled: false,
    });
    const replaced = await ctx.services.brands.replace(brand._id, { code: 'b1', name: { pt: 'Café' } });
    expect(replaced).toMatchObject({ name: { pt: 'Café' }, description: {}, tags: [], enabled: true, version: 2 });

    const patched = await ctx.services.brands.patch(brand._id, {
      name: { en: 'Coffee', es: 'Café' },
      tags: ['a', 'b'],
    });
    expect(patched).toMatchObject({ name: { pt: 'Café', en: 'Coffee', es: 'Café' }, tags: ['a', 'b'], version: 3 });
    const removed = await ctx.services.brands.patch(brand._id, { name: { es: null }, tags: null, enabled: false });
    expect(removed).toMatchObject({ name: { pt: 'Café', en: 'Coffee' }, tags: [], enabled: false, version: 4 });

    // The result of a patch must still be a valid record; the patch itself must be well-formed.
    const emptied = await ctx.services.brands.patch(brand._id, { name: { pt: null, en: null } }).catch((e) => e);
    expect(emptied).toBeInstanceOf(ValidationError);
    expect(emptied.details).toEqual([{ field: 'name', message: 'must have at least one language' }]);
    await expect(ctx.services.brands.patch(brand._id, { code: null })).rejects.toBeInstanceOf(ValidationError);
    await expect(ctx.services.brands.patch(brand._id, { colour: 'red' })).rejects.toBeInstanceOf(ValidationError);
    expect((await ctx.services.brands.get(brand._id)).version).toBe(4);
  });

  it('checks If-Match under the row lock: a stale version is 412, two writers with one version get one success', async () => {
    const brand = await ctx.newBrand();
    await expect(ctx.services.brands.patch(brand._id, { enabled: false }, 7)).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    await expect(ctx.services.brands.remove(brand._id, 7)).rejects.toBeInstanceOf(PreconditionFailedError);
    const settled = await Promise.allSettled([
      ctx.services.brands.patch(brand._id, { tags: ['one'] }, 1),
      ctx.services.brands.replace(brand._id, { code: brand.code, name: { en: 'two' } }, 1),
    ]);
    expect(settled.map((s) => s.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((settled.find((s) => s.status === 'rejected') as PromiseRejectedResult).reason).toBeInstanceOf(
      PreconditionFailedError,
    );
    await expect(ctx.services.brands.remove(brand._id, 2)).resolves.toMatchObject({ version: 3 });
  });

  it('answers 503 and stores nothing when the workflow app, which keeps users groups, does not answer', async () => {
    const down = usersGroupsDirectory('127.0.0.1:1');
    try {
      const catalogs = new RecordService(ctx.ds, catalogResource(down), CATALOG_STORE);
      const err = await catalogs
        .create({ code: 'b2b', name: { en: 'B2B' }, user_groups: ['6740a1b2c3d4e5f601234599'] })
        .catch((e) => e);
      expect(err).toBeInstanceOf(UnavailableError);
      expect(err.status).toBe(503);
      expect((await ctx.services.catalogs.list(query(catalogListDecl, {}))).total).toBe(0);
      // Naming no users group needs no answer from it.
      await expect(catalogs.create({ code: 'open', name: { en: 'Open' } })).resolves.toMatchObject({ user_groups: [] });
    } finally {
      down.close();
    }
  });

  it('tells malformed ids from unknown ones', async () => {
    await expect(ctx.services.brands.get('xyz')).rejects.toBeInstanceOf(ValidationError);
    const missing = await ctx.services.brands.get(ID).catch((e) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    // The owner names the place; the gateway writes its path (catalog.routes.int.spec.ts).
    expect(missing.links).toEqual([{ collection: 'brands' }]);
  });

  it('lists with filters on every kind of field, sort and paging', async () => {
    const a = await ctx.newBrand({ code: 'a', tags: ['eco', 'local'] });
    const b = await ctx.newBrand({ code: 'b', enabled: false, tags: ['eco'] });
    const c = await ctx.newBrand({ code: 'c' });
    await ctx.services.brands.patch(c._id, { tags: ['x'] });
    const codes = async (params: Record<string, string>) =>
      (await ctx.services.brands.list(query(brandListDecl, params))).data.map((x) => x.code);

    expect(await codes({ sort: 'code' })).toEqual(['a', 'b', 'c']);
    expect(await codes({})).toEqual(['c', 'b', 'a']);
    expect(await codes({ enabled: 'false' })).toEqual(['b']);
    expect(await codes({ tags: 'eco', sort: 'code' })).toEqual(['a', 'b']);
    expect(await codes({ tags_nin: 'local', sort: 'code' })).toEqual(['b', 'c']);
    expect(await codes({ code_in: 'a,c', sort: '-code' })).toEqual(['c', 'a']);
    expect(await codes({ version_gt: '1' })).toEqual(['c']);
    expect(await codes({ _id_in: `${a._id},${b._id}`, sort: 'code' })).toEqual(['a', 'b']);
    expect(await codes({ created_at_gte: a.created_at, sort: 'code', limit: '2', page: '2' })).toEqual(['c']);
    expect(await codes({ created_by_name_exists: 'true' })).toEqual([]);
    expect((await ctx.services.brands.list(query(brandListDecl, { limit: '1' }))).total).toBe(3);
    // A query that skipped the gateway is checked again: search_text is storage, not a filter.
    await expect(
      ctx.services.brands.list({
        ...query(brandListDecl, {}),
        filters: [{ field: 'search_text', op: 'eq', values: ['a'] }],
      }),
    ).rejects.toBeInstanceOf(ValidationError);
  });

  it('_search matches code and every language of name, ignoring case and accents, through the trigram index', async () => {
    await ctx.newBrand({ code: 'COFFEE_CO', name: { en: 'Roasters' } });
    await ctx.newBrand({ code: 'b2', name: { pt: 'Café', en: 'Brew' } });
    await ctx.newBrand({ code: 'b3', name: { fr: 'CRÈME brûlée' } });
    await ctx.newBrand({ code: 'b4', name: { en: 'Tea' } });
    const found = async (text: string) =>
      (await ctx.services.brands.list(query(brandListDecl, { _search: text, sort: 'code' }))).data.map((x) => x.code);
    expect(await found('cafe')).toEqual(['b2']);
    expect(await found('CAFÉ')).toEqual(['b2']);
    expect(await found('coffee')).toEqual(['COFFEE_CO']);
    expect(await found('creme brulee')).toEqual(['b3']);
    expect(await found('brew')).toEqual(['b2']);
    expect(await found('nothing')).toEqual([]);
    expect((await ctx.services.brands.list(query(brandListDecl, { _search: 'e', enabled: 'true' }))).total).toBe(4);

    // The query's expression is the index's: with sequential scans off, the plan uses it.
    const qb = applyListQuery(
      ctx.ds.manager.createQueryBuilder(BrandEntity, 't').where('t.deleted = false'),
      storageDecl(brandListDecl),
      query(brandListDecl, { _search: 'cafe' }),
      't',
      { unaccent: CATALOG_STORE.unaccent },
    );
    const [sql, params] = qb.getQueryAndParameters();
    const plan = await ctx.ds.transaction(async (m) => {
      await m.query('SET LOCAL enable_seqscan = off');
      return (await m.query(`EXPLAIN ${sql}`, params)).map((r: { 'QUERY PLAN': string }) => r['QUERY PLAN']).join('\n');
    });
    expect(plan).toContain('IDX_brands_search');
  });

  it('batch-gets live records by ids and by codes at once', async () => {
    const a = await ctx.newBrand({ code: 'a' });
    const b = await ctx.newBrand({ code: 'b' });
    const c = await ctx.newBrand({ code: 'c' });
    await ctx.services.brands.remove(c._id);
    const got = await ctx.services.brands.batchGet([a._id, c._id, ID, a._id], ['b', 'zz']);
    expect(got.map((x) => x.code)).toEqual([a, b].sort((x, y) => x._id.localeCompare(y._id)).map((x) => x.code));
    expect(await ctx.services.brands.batchGet([], [])).toEqual([]);
    const bad = await ctx.services.brands.batchGet(['nope', a._id], []).catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.details).toEqual([{ field: 'ids.0', message: 'must be 24 lowercase hexadecimal characters' }]);
    await expect(
      ctx.services.brands.batchGet(
        [],
        Array.from({ length: 1001 }, (_, i) => `c${i}`),
      ),
    ).rejects.toThrow('At most 1000');
  });

  it('families keep attribute groups and attributes with required; catalogs keep users groups; both filter on them', async () => {
    const g1 = (await ctx.newAttributeGroup())._id;
    const g2 = (await ctx.newAttributeGroup())._id;
    const attribute = (await ctx.newAttribute())._id;
    const family = await ctx.newFamily({
      code: 'shoes',
      attribute_groups: [g1, g2],
      attributes: [{ _id: attribute, required: true }],
    });
    expect(family).toMatchObject({ attribute_groups: [g1, g2], attributes: [{ _id: attribute, required: true }] });
    await ctx.newFamily({ code: 'shirts' });
    const byGroup = await ctx.services.families.list(query(familyListDecl, { attribute_groups: g2 }));
    expect(byGroup.data.map((f) => f.code)).toEqual(['shoes']);
    const patched = await ctx.services.families.patch(family._id, {
      attributes: [{ _id: attribute, required: false }],
      attribute_groups: null,
    });
    expect(patched).toMatchObject({ attribute_groups: [], attributes: [{ _id: attribute, required: false }] });

    // Users groups live in the workflow app: a catalog names live ones only (checked there).
    const buyers = await ctx.newUsersGroup();
    const sellers = await ctx.newUsersGroup();
    const catalog = await ctx.newCatalog({ code: 'b2b', user_groups: [buyers] });
    expect(catalog.user_groups).toEqual([buyers]);
    expect(
      (await ctx.services.catalogs.list(query(catalogListDecl, { user_groups: buyers }))).data.map((x) => x.code),
    ).toEqual(['b2b']);
    expect((await ctx.services.catalogs.list(query(catalogListDecl, { user_groups: sellers }))).total).toBe(0);
    const unknown = await ctx.newCatalog({ code: 'b2c', user_groups: [sellers, g1] }).catch((e) => e);
    expect(unknown).toBeInstanceOf(ValidationError);
    expect(unknown.details).toEqual([{ field: 'user_groups.1', message: `no live users group has _id '${g1}'` }]);
    // A group already held is not asked about again; only added ones are.
    const kept = await ctx.services.catalogs.patch(catalog._id, { user_groups: [buyers, sellers] });
    expect(kept.user_groups).toEqual([buyers, sellers]);
  });

  it('families name only live attribute groups and attributes (400 naming each missing id), which cannot be deleted while named (409)', async () => {
    const group = await ctx.newAttributeGroup({ key: 'specs' });
    const attribute = await ctx.newAttribute({ key: 'width' });
    const missing = await ctx
      .newFamily({ attribute_groups: [group._id, ID], attributes: [{ _id: ID, required: true }] })
      .catch((e) => e);
    expect(missing).toBeInstanceOf(ValidationError);
    expect(missing.details).toEqual([
      { field: 'attribute_groups.1', message: `no live attribute group has _id '${ID}'` },
    ]);
    const noAttribute = await ctx
      .newFamily({
        attributes: [
          { _id: attribute._id, required: true },
          { _id: ID, required: false },
        ],
      })
      .catch((e) => e);
    expect(noAttribute.details).toEqual([{ field: 'attributes.1._id', message: `no live attribute has _id '${ID}'` }]);

    const family = await ctx.newFamily({
      attribute_groups: [group._id],
      attributes: [{ _id: attribute._id, required: true }],
    });
    expect((await ctx.services.attributeGroups.remove(group._id).catch((e) => e)).message).toBe(
      "The attribute group 'specs' is still used by 1 live family",
    );
    expect((await ctx.services.attributes.remove(attribute._id).catch((e) => e)).message).toBe(
      "The attribute 'width' is still used by 1 live family",
    );
    await ctx.services.families.remove(family._id);
    await expect(ctx.services.attributeGroups.remove(group._id)).resolves.toMatchObject({ key: 'specs' });
    await expect(ctx.services.attributes.remove(attribute._id)).resolves.toMatchObject({ key: 'width' });
  });

  it('records exactly one event per write, in the transaction, with the record as the API shows it', async () => {
    const brand = await as('Caio', () => ctx.services.brands.create({ code: 'ev', name: { en: 'Ev' } }));
    const patched = await ctx.services.brands.patch(brand._id, { enabled: false });
    await expect(ctx.services.brands.create({ code: 'ev', name: { en: 'Dup' } })).rejects.toBeInstanceOf(ConflictError);
    await expect(ctx.services.brands.patch(brand._id, { enabled: true }, 1)).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    const deleted = await ctx.services.brands.remove(brand._id);

    const events = await ctx.events();
    expect(events.map((e) => e.type)).toEqual(['brands.created', 'brands.updated', 'brands.deleted']);
    expect(events[0]).toMatchObject({
      collection: 'brands',
      source: 'catalog',
      actor: { user_name: 'Caio' },
      request_id: 'req-Caio',
      data: brand,
    });
    expect(events[1].data).toEqual(patched);
    // A deleted event says when and by whom besides the last state.
    const { deleted_at, deleted_by, ...last } = events[2].data as Record<string, unknown>;
    expect(last).toEqual(deleted);
    expect(deleted_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(deleted_by === null || typeof deleted_by === 'string').toBe(true);
  });

  it('publishes the outbox to JetStream as pim.catalog.<collection>.<action>', async () => {
    const stream = await createTestStream('catalog');
    const relay = new OutboxRelay({
      dataSource: ctx.ds,
      nc: stream.nc,
      stream: stream.name,
      subjectPrefix: stream.subjectPrefix,
      logger: createLogger({ service: 'test', level: 'silent' }),
      pollMs: 50,
    });
    try {
      const tree = await ctx.newCategoryTree();
      await ctx.services.categoryTrees.remove(tree._id);
      await relay.start();
      let msgs = await stream.messages();
      for (let i = 0; i < 100 && msgs.length < 2; i++) {
        await new Promise((r) => setTimeout(r, 50));
        msgs = await stream.messages();
      }
      expect(msgs.map((m) => m.subject)).toEqual([
        `${stream.subjectPrefix}pim.catalog.category_trees.created`,
        `${stream.subjectPrefix}pim.catalog.category_trees.deleted`,
      ]);
      expect(msgs[0].data).toMatchObject({ type: 'category_trees.created', data: tree });
    } finally {
      await relay.stop();
      await stream.destroy();
    }
  });
});
