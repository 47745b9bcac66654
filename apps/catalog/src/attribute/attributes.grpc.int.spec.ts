import 'reflect-metadata';
import { PROTO_FILES, PROTO_ROOT, attributes as pb } from '@pim/contracts';
import { ConflictError, NotFoundError, ValidationError } from '@pim/errors';
import { createLogger } from '@pim/logging';
import { GrpcApp, HealthChecker, createRpcClient } from '@pim/rpc';
import { catalogTestContext, type CatalogTestContext } from '../testing/catalog.context';
import { attributesGrpc } from '../attributes.module';

const query = { page: 1, limit: 25, skip: 0, sort: [], filters: [], search: '', expand: [] };

// The attribute services as other apps and the gateway see them: links and users groups with
// `id`, type_config as a Struct, options addressed by attribute, BatchGet by keys and by values.
describe('pim.catalog.v1 attributes over gRPC', () => {
  let ctx: CatalogTestContext;
  let app: GrpcApp;
  let address: string;
  let attributes: ReturnType<typeof createRpcClient<pb.AttributesServiceClient>>;
  let options: ReturnType<typeof createRpcClient<pb.AttributeOptionsServiceClient>>;
  let groups: ReturnType<typeof createRpcClient<pb.AttributeGroupsServiceClient>>;

  beforeAll(async () => {
    ctx = await catalogTestContext();
    const logger = createLogger({ service: 'catalog-test', level: 'silent' });
    app = new GrpcApp({
      logger,
      services: attributesGrpc(ctx.services, logger),
      protoRoot: PROTO_ROOT,
      protoFiles: [PROTO_FILES.attributes],
    });
    address = `127.0.0.1:${await app.listen(0, '127.0.0.1')}`;
    const opts = { service: 'catalog', address, deadlineMs: 5_000 };
    attributes = createRpcClient(pb.AttributesServiceClient, opts);
    options = createRpcClient(pb.AttributeOptionsServiceClient, opts);
    groups = createRpcClient(pb.AttributeGroupsServiceClient, opts);
  });

  afterAll(async () => {
    for (const c of [attributes, options, groups]) c?.close();
    await app?.shutdown();
    await ctx?.close();
  });

  it('serves health for the three services', async () => {
    const health = new HealthChecker(address);
    try {
      for (const s of ['AttributesService', 'AttributeOptionsService', 'AttributeGroupsService'])
        expect(await health.check(`pim.catalog.v1.${s}`)).toBe('SERVING');
    } finally {
      health.close();
    }
  });

  it('round-trips groups with users groups, attributes with links and a Struct type_config, options by attribute', async () => {
    const USERS_GROUP = await ctx.newUsersGroup();
    const group = (
      await groups.createAttributeGroup({
        input: {
          key: 'dims',
          name: { en: 'Dimensions' },
          description: {},
          users_groups: [{ id: USERS_GROUP, not_allowed_users: ['u1'] }],
          tags: [],
        },
      })
    ).data!;
    expect(group).toMatchObject({
      key: 'dims',
      sequence: 0,
      enabled: true,
      users_groups: [{ id: USERS_GROUP, not_allowed_users: ['u1'] }],
    });
    expect(group.category_id).toBeUndefined();

    const input: pb.AttributeInput = {
      groups: [{ id: group.id, required: true }],
      categories: [],
      key: 'weight',
      name: { en: 'Weight' },
      description: {},
      type: 'metric',
      type_config: { units: ['kg', 'g'], enable_ia_generation: false },
      association: 'sku',
      protected_by_lgpd: false,
      tags: [],
    };
    const weight = (await attributes.createAttribute({ input })).data!;
    expect(weight).toMatchObject({
      key: 'weight',
      type: 'metric',
      type_config: { units: ['kg', 'g'], enable_ia_generation: false },
      groups: [{ id: group.id, required: true }],
      unique: false,
    });
    const patched = (
      await attributes.patchAttribute({ id: weight.id, patch: { type_config: { units: ['kg'] } }, expected_version: 1 })
    ).data!;
    expect(patched.type_config).toEqual({ units: ['kg'], enable_ia_generation: false });
    const immutable = await attributes
      .patchAttribute({ id: weight.id, patch: { association: 'product' } })
      .catch((e) => e);
    expect(immutable).toBeInstanceOf(ConflictError);
    const noLgpd = await attributes
      .createAttribute({ input: { ...input, key: 'other', protected_by_lgpd: undefined } })
      .catch((e) => e);
    expect(noLgpd).toBeInstanceOf(ValidationError);
    expect(noLgpd.details.map((d: { field: string }) => d.field)).toEqual(['protected_by_lgpd']);

    const color = (
      await attributes.createAttribute({ input: { ...input, key: 'color', type: 'select', type_config: undefined } })
    ).data!;
    expect(color.type_config).toEqual({});
    const red = (
      await options.createAttributeOption({
        attribute_id: color.id,
        input: { value: 'red', label: { en: 'Red' }, tags: [], fields: [] },
      })
    ).data!;
    expect(red).toMatchObject({ attribute_id: color.id, value: 'red', sequence: 0, enabled: true });
    await expect(options.getAttributeOption({ attribute_id: weight.id, id: red.id })).rejects.toBeInstanceOf(
      ValidationError,
    );
    const listed = await options.listAttributeOptions({ attribute_id: color.id, query });
    expect(listed.data.map((o) => o.value)).toEqual(['red']);
    expect(listed.page_info?.total).toBe(1);

    expect(
      (await attributes.batchGetAttributes({ ids: [], keys: ['color', 'weight', 'none'] })).data
        .map((a) => a.key)
        .sort(),
    ).toEqual(['color', 'weight']);
    expect((await groups.batchGetAttributeGroups({ ids: [], keys: ['dims'] })).data.map((g) => g.id)).toEqual([
      group.id,
    ]);
    expect(
      (await options.batchGetAttributeOptions({ ids: [], attribute_id: color.id, values: ['red'] })).data.map(
        (o) => o.id,
      ),
    ).toEqual([red.id]);

    await attributes.deleteAttribute({ id: color.id });
    await expect(options.getAttributeOption({ attribute_id: color.id, id: red.id })).rejects.toBeInstanceOf(
      NotFoundError,
    );
    const inUse = await groups.deleteAttributeGroup({ id: group.id }).catch((e) => e);
    expect(inUse).toBeInstanceOf(ConflictError);
    expect(inUse.message).toContain('1 live attribute');
  });
});
