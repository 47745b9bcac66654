import 'reflect-metadata';
import { PROTO_FILES, PROTO_ROOT, taxonomy as pb } from '@pim/contracts';
import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '@pim/errors';
import { createLogger, runWithContext } from '@pim/logging';
import { GrpcApp, HealthChecker, createRpcClient } from '@pim/rpc';
import { catalogTestContext, type CatalogTestContext } from './testing/catalog.context';
import { taxonomyGrpc } from './taxonomy.module';

const query = (
  extra: Partial<{
    filters: { field: string; op: string; values: string[] }[];
    sort: { field: string; direction: string }[];
  }> = {},
) => ({
  page: 1,
  limit: 25,
  skip: 0,
  sort: [],
  filters: [],
  search: '',
  expand: [],
  ...extra,
});

// The catalog's gRPC surface as other apps and the gateway see it: messages, Struct patches,
// metadata and the error object in trailers.
describe('pim.catalog.v1 taxonomy over gRPC', () => {
  let ctx: CatalogTestContext;
  let app: GrpcApp;
  let address: string;
  const opts = () => ({ address, deadlineMs: 5_000 });
  let families: ReturnType<typeof createRpcClient<pb.FamiliesServiceClient>>;
  let categories: ReturnType<typeof createRpcClient<pb.CategoriesServiceClient>>;
  let trees: ReturnType<typeof createRpcClient<pb.CategoryTreesServiceClient>>;

  beforeAll(async () => {
    ctx = await catalogTestContext();
    const logger = createLogger({ service: 'catalog-test', level: 'silent' });
    app = new GrpcApp({
      logger,
      services: taxonomyGrpc(ctx.services, logger),
      protoRoot: PROTO_ROOT,
      protoFiles: [PROTO_FILES.taxonomy],
    });
    address = `127.0.0.1:${await app.listen(0, '127.0.0.1')}`;
    families = createRpcClient(pb.FamiliesServiceClient, { service: 'catalog', ...opts() });
    categories = createRpcClient(pb.CategoriesServiceClient, { service: 'catalog', ...opts() });
    trees = createRpcClient(pb.CategoryTreesServiceClient, { service: 'catalog', ...opts() });
  });

  afterAll(async () => {
    families?.close();
    categories?.close();
    trees?.close();
    await app?.shutdown();
    await ctx?.close();
  });

  it('serves health for each of the five services', async () => {
    const health = new HealthChecker(address);
    try {
      for (const s of [
        'BrandsService',
        'CategoryTreesService',
        'CategoriesService',
        'FamiliesService',
        'CatalogsService',
      ]) {
        expect(await health.check(`pim.catalog.v1.${s}`)).toBe('SERVING');
      }
    } finally {
      health.close();
    }
  });

  it('creates, reads, merge-patches (Struct with nulls) and deletes a family; the caller travels in metadata', async () => {
    const GROUP = (await ctx.newAttributeGroup())._id;
    const ATTRIBUTE = (await ctx.newAttribute())._id;
    const input: pb.FamilyInput = {
      code: 'shoes',
      name: { en: 'Shoes', pt: 'Sapatos' },
      description: {},
      tags: ['x'],
      attribute_groups: [GROUP],
      attributes: [{ id: ATTRIBUTE, required: true }],
    };
    const created = await runWithContext({ requestId: 'r1', actor: { user_name: 'Dora' } }, () =>
      families.createFamily({ input }),
    );
    expect(created.data).toMatchObject({
      code: 'shoes',
      enabled: true,
      attributes: [{ id: ATTRIBUTE, required: true }],
      attribute_groups: [GROUP],
      version: 1,
      created_by_name: 'Dora',
    });
    const id = created.data!.id;

    const patched = await families.patchFamily({
      id,
      patch: { name: { pt: null }, attribute_groups: null, enabled: false },
      expected_version: 1,
    });
    expect(patched.data).toMatchObject({
      name: { en: 'Shoes' },
      attribute_groups: [],
      attributes: [{ id: ATTRIBUTE, required: true }],
      enabled: false,
      version: 2,
    });
    await expect(families.updateFamily({ id, input, expected_version: 1 })).rejects.toBeInstanceOf(
      PreconditionFailedError,
    );
    expect((await families.getFamily({ id })).data).toEqual(patched.data);

    const found = await families.batchGetFamilies({ ids: [], codes: ['shoes', 'none'] });
    expect(found.data.map((f) => f.id)).toEqual([id]);
    await families.deleteFamily({ id });
    await expect(families.getFamily({ id })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('answers with the error object: 400 with details, 409 naming the clash', async () => {
    const bad = await families
      .createFamily({
        input: { code: '', name: {}, description: {}, tags: [], attribute_groups: ['x'], attributes: [] },
      })
      .catch((e) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad.details.map((d: { field: string }) => d.field).sort()).toEqual(['attribute_groups.0', 'code', 'name']);

    const tree = (
      await trees.createCategoryTree({ input: { code: 't', name: { en: 'T' }, description: {}, tags: [] } })
    ).data!;
    const root = (
      await categories.createCategory({
        input: { code: 'root', name: { en: 'Root' }, description: {}, tags: [], category_tree_id: tree.id },
      })
    ).data!;
    const child = (
      await categories.createCategory({
        input: {
          code: 'child',
          name: { en: 'Child' },
          description: {},
          tags: [],
          category_tree_id: tree.id,
          parent_id: root.id,
        },
      })
    ).data!;
    expect(child.parent_id).toBe(root.id);
    expect(root.parent_id).toBeUndefined();
    const cycle = await categories.patchCategory({ id: root.id, patch: { parent_id: child.id } }).catch((e) => e);
    expect(cycle).toBeInstanceOf(ConflictError);
    expect(cycle.message).toContain("'child'");

    const subtree = await categories.listCategories({
      query: query({
        filters: [{ field: 'categories_in_children', op: 'eq', values: [root.id] }],
        sort: [{ field: 'code', direction: 'asc' }],
      }),
    });
    expect(subtree.data.map((c) => c.code)).toEqual(['child', 'root']);
    expect(subtree.page_info?.total).toBe(2);
  });
});
