import 'reflect-metadata';
import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '@pim/errors';
import { parseListQuery } from '@pim/query';
import { attributeOptionListDecl, type AttributeView } from '@pim/resources';
import { useCatalogContext, type CatalogTestContext } from '../testing/catalog.context';

const MISSING = '6740a1b2c3d4e5f601234567';

// Options of select and multiselect attributes against the real Postgres.
describe('attribute options (real Postgres)', () => {
  let ctx: CatalogTestContext;
  useCatalogContext((c) => (ctx = c));
  let color: AttributeView;

  beforeEach(async () => {
    color = await ctx.newAttribute({ key: 'color', type: 'select' });
  });

  const options = () => ctx.services.attributeOptions;
  const values = async (attributeId: string, params: Record<string, string> = {}) =>
    (await options().list(attributeId, parseListQuery(attributeOptionListDecl, { sort: 'value', ...params }))).data.map(
      (o) => o.value,
    );

  it('creates an option under its attribute with every field of the interface, in order', async () => {
    const red = await options().create(color._id, {
      value: 'red',
      label: { pt: 'Vermelho', en: 'Red' },
      sequence: 2,
      fields: [MISSING],
    });
    expect(red).toEqual({
      _id: expect.any(String),
      attribute_id: color._id,
      value: 'red',
      label: { pt: 'Vermelho', en: 'Red' },
      sequence: 2,
      enabled: true,
      tags: [],
      fields: [MISSING],
      version: 1,
      created_at: expect.any(String),
      updated_at: red.created_at,
    });
    expect(await options().get(color._id, red._id)).toEqual(red);
  });

  it('exists only for live select and multiselect attributes: 400 for another type, 404 for no attribute', async () => {
    const title = await ctx.newAttribute({ key: 'title' });
    const typed = await options()
      .create(title._id, { value: 'x', label: { en: 'X' } })
      .catch((e) => e);
    expect(typed).toBeInstanceOf(ValidationError);
    expect(typed.message).toBe(
      "Attribute 'title' is of type text; only select and multiselect attributes have options",
    );
    await expect(options().list(title._id, parseListQuery(attributeOptionListDecl, {}))).rejects.toBeInstanceOf(
      ValidationError,
    );
    const none = await options()
      .create(MISSING, { value: 'x', label: { en: 'X' } })
      .catch((e) => e);
    expect(none).toBeInstanceOf(NotFoundError);
    expect(none.message).toBe(`No attribute with _id '${MISSING}'`);
    await expect(options().list(MISSING, parseListQuery(attributeOptionListDecl, {}))).rejects.toBeInstanceOf(
      NotFoundError,
    );
    await expect(options().create('nope', { value: 'x', label: { en: 'X' } })).rejects.toBeInstanceOf(ValidationError);
    const sizes = await ctx.newAttribute({ key: 'sizes', type: 'multiselect' });
    await expect(options().create(sizes._id, { value: 'M', label: { en: 'Medium' } })).resolves.toMatchObject({
      attribute_id: sizes._id,
    });
  });

  it('keeps values unique among the live options of one attribute (409), not across attributes', async () => {
    await ctx.newOption(color._id, { value: 'red' });
    const taken = await options()
      .create(color._id, { value: 'red', label: { en: 'Red again' } })
      .catch((e) => e);
    expect(taken).toBeInstanceOf(ConflictError);
    expect(taken.message).toBe("Another live attribute option of the same attribute already has the value 'red'");
    expect(taken.details).toEqual([{ field: 'value', message: 'already taken' }]);
    const size = await ctx.newAttribute({ key: 'finish', type: 'select' });
    await expect(options().create(size._id, { value: 'red', label: { en: 'Red' } })).resolves.toMatchObject({
      value: 'red',
    });
    const blue = await ctx.newOption(color._id, { value: 'blue' });
    await expect(options().patch(color._id, blue._id, { value: 'red' })).rejects.toBeInstanceOf(ConflictError);
  });

  it('needs a label with a language; checks value form, If-Match; merge-patches labels', async () => {
    const bad = await options()
      .create(color._id, { value: '', label: {}, colour: 'x' })
      .catch((e) => e);
    expect(bad.details.map((d: { field: string }) => d.field).sort()).toEqual(['colour', 'label', 'value']);
    await expect(options().create(color._id, { value: 'a\nb', label: { en: 'x' } })).rejects.toBeInstanceOf(
      ValidationError,
    );
    const red = await ctx.newOption(color._id, { value: 'red', label: { en: 'Red' } });
    const patched = await options().patch(color._id, red._id, { label: { pt: 'Vermelho' }, enabled: false }, 1);
    expect(patched).toMatchObject({ label: { en: 'Red', pt: 'Vermelho' }, enabled: false, version: 2 });
    await expect(
      options().replace(color._id, red._id, { value: 'red', label: { en: 'Red' } }, 1),
    ).rejects.toBeInstanceOf(PreconditionFailedError);
    const removed = await options()
      .patch(color._id, red._id, { label: { en: null, pt: null } })
      .catch((e) => e);
    expect(removed.details).toEqual([{ field: 'label', message: 'must have at least one language' }]);
  });

  it('is reached only through its own attribute: another attribute in the path is a 404', async () => {
    const red = await ctx.newOption(color._id, { value: 'red' });
    const other = await ctx.newAttribute({ key: 'other', type: 'select' });
    const err = await options()
      .get(other._id, red._id)
      .catch((e) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toBe(`No attribute option with _id '${red._id}' in attribute '${other._id}'`);
    // The owner names the place; the gateway writes its path (attributes.routes.int.spec.ts).
    expect(err.links).toEqual([{ collection: 'attribute_options', parent: other._id }]);
    await expect(options().patch(other._id, red._id, { sequence: 1 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(options().remove(other._id, red._id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await options().get(color._id, red._id)).version).toBe(1);
  });

  it("lists one attribute's options: _search over label (accents folded), filters, sort, paging", async () => {
    await ctx.newOption(color._id, { value: 'red', label: { pt: 'Vermelho' }, sequence: 3 });
    await ctx.newOption(color._id, { value: 'lilac', label: { pt: 'Lilás' }, sequence: 1, tags: ['pastel'] });
    await ctx.newOption(color._id, { value: 'blue', label: { en: 'Blue' }, sequence: 2, enabled: false });
    const other = await ctx.newAttribute({ key: 'other', type: 'select' });
    await ctx.newOption(other._id, { value: 'red', label: { pt: 'Vermelho' } });
    expect(await values(color._id)).toEqual(['blue', 'lilac', 'red']);
    expect(await values(color._id, { _search: 'LILAS' })).toEqual(['lilac']);
    expect(await values(color._id, { _search: 'red' })).toEqual([]); // the value is not searchable
    expect(await values(color._id, { enabled: 'false' })).toEqual(['blue']);
    expect(await values(color._id, { tags: 'pastel' })).toEqual(['lilac']);
    expect(await values(color._id, { sort: 'sequence', limit: '2', page: '2' })).toEqual(['red']);
    expect((await options().list(color._id, parseListQuery(attributeOptionListDecl, { limit: '1' }))).total).toBe(3);
  });

  it('refuses to delete, or to change the value of, an option products use (409 with their count)', async () => {
    const red = await ctx.newOption(color._id, { value: 'red' });
    ctx.usage.productsWithOption = async (_m, attribute, value) =>
      attribute.key === 'color' && value === 'red' ? 3 : 0;
    const deleting = await options()
      .remove(color._id, red._id)
      .catch((e) => e);
    expect(deleting).toBeInstanceOf(ConflictError);
    expect(deleting.message).toBe("Cannot delete option 'red' of attribute 'color': 3 live products use it");
    expect(deleting.details).toEqual([{ field: '_id', message: 'used by 3 live products' }]);
    const renaming = await options()
      .patch(color._id, red._id, { value: 'crimson' })
      .catch((e) => e);
    expect(renaming).toBeInstanceOf(ConflictError);
    expect(renaming.message).toContain('Cannot change the value of option');
    await expect(options().patch(color._id, red._id, { label: { en: 'Crimson' } })).resolves.toMatchObject({
      value: 'red',
      version: 2,
    });

    ctx.usage.productsWithOption = async () => 0;
    await expect(options().remove(color._id, red._id)).resolves.toMatchObject({ version: 3 });
    await expect(ctx.newOption(color._id, { value: 'red' })).resolves.toMatchObject({ value: 'red' });
  });

  it('answers 0 products for every option while the products table does not exist', async () => {
    const red = await ctx.newOption(color._id, { value: 'red' });
    expect(await ctx.usage.productsWithOption(ctx.ds.manager, { _id: color._id, key: 'color' }, 'red')).toBe(0);
    expect(await ctx.usage.productsWithAttribute(ctx.ds.manager, { _id: color._id, key: 'color' })).toBe(0);
    await expect(options().remove(color._id, red._id)).resolves.toMatchObject({ value: 'red' });
  });

  it('batch-gets by ids and by values of one attribute; gives the products slice every live value per attribute', async () => {
    const red = await ctx.newOption(color._id, { value: 'red', sequence: 2 });
    const blue = await ctx.newOption(color._id, { value: 'blue', sequence: 1 });
    const sizes = await ctx.newAttribute({ key: 'sizes', type: 'multiselect' });
    const m = await ctx.newOption(sizes._id, { value: 'M' });
    expect((await options().batchGet([red._id, m._id], undefined, [])).map((o) => o.value)).toEqual(['red', 'M']);
    expect((await options().batchGet([m._id], color._id, ['blue', 'nope'])).map((o) => o._id)).toEqual([blue._id]);
    const needs = await options()
      .batchGet([], undefined, ['red'])
      .catch((e) => e);
    expect(needs).toBeInstanceOf(ValidationError);
    expect(needs.details).toEqual([{ field: 'attribute_id', message: 'is required with values' }]);
    await options().remove(color._id, red._id);
    expect(await options().valuesOf([color._id, sizes._id, MISSING])).toEqual(
      new Map([
        [color._id, ['blue']],
        [sizes._id, ['M']],
        [MISSING, []],
      ]),
    );
  });

  it('never leaves a live option under a deleted attribute, however a create and the delete interleave', async () => {
    for (let i = 0; i < 5; i++) {
      const attribute = await ctx.newAttribute({ type: 'multiselect' });
      const [created, deleted] = await Promise.allSettled([
        options().create(attribute._id, { value: 'v', label: { en: 'V' } }),
        ctx.services.attributes.remove(attribute._id),
      ]);
      expect(deleted.status).toBe('fulfilled');
      if (created.status === 'rejected') expect(created.reason).toBeInstanceOf(NotFoundError);
      const [{ live }] = await ctx.ds.query(
        'SELECT count(*)::int AS live FROM catalog.attribute_options WHERE attribute_id = $1 AND deleted = false',
        [attribute._id],
      );
      expect(live).toBe(0);
    }
  });

  it('records attribute_options.created/updated/deleted with the option as the API shows it', async () => {
    const red = await ctx.newOption(color._id, { value: 'red' });
    const patched = await options().patch(color._id, red._id, { sequence: 4 });
    const deleted = await options().remove(color._id, red._id);
    const events = (await ctx.events()).filter((e) => e.collection === 'attribute_options');
    expect(events.map((e) => e.type)).toEqual([
      'attribute_options.created',
      'attribute_options.updated',
      'attribute_options.deleted',
    ]);
    // A deleted event says when and by whom besides the last state.
    expect(events.map((e) => e.data)).toEqual([
      red,
      patched,
      {
        ...deleted,
        deleted_at: expect.stringMatching(/^\d{4}-/),
        deleted_by: (events[2].data as { deleted_by?: string | null }).deleted_by ?? null,
      },
    ]);
  });
});
