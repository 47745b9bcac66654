import { loadSync } from '@grpc/proto-loader';
import { PROTO_FILES, PROTO_ROOT } from '@pim/contracts';
import {
  brandSchemas,
  catalogSchemas,
  categorySchemas,
  categoryTreeSchemas,
  familyAttributeSchema,
  familySchemas,
} from './taxonomy';

// The REST schemas (zod) and the gRPC messages describe the same fields; this keeps them in step.
const pkg = loadSync(PROTO_FILES.taxonomy, { includeDirs: [PROTO_ROOT], keepCase: true });
const fieldsOf = (message: string): string[] =>
  (pkg[`pim.catalog.v1.${message}`] as unknown as { type: { field: { name: string }[] } }).type.field
    .map((f) => f.name)
    .sort();
const restToProto = (keys: string[]) => keys.map((k) => (k === '_id' ? 'id' : k)).sort();

const resources = [
  ['Brand', brandSchemas],
  ['CategoryTree', categoryTreeSchemas],
  ['Category', categorySchemas],
  ['Family', familySchemas],
  ['Catalog', catalogSchemas],
] as const;

describe('taxonomy contract: zod schemas vs proto messages', () => {
  it.each(resources)('%s has the same fields in REST and gRPC', (message, schemas) => {
    expect(restToProto(Object.keys(schemas.view.shape))).toEqual(fieldsOf(message));
  });

  it.each(resources)(
    '%sInput has the same fields in REST and gRPC, and a patch may touch each of them',
    (message, schemas) => {
      expect(restToProto(Object.keys(schemas.input.shape))).toEqual(fieldsOf(`${message}Input`));
      expect(Object.keys(schemas.patch.shape).sort()).toEqual(Object.keys(schemas.input.shape).sort());
    },
  );

  it('FamilyAttribute has the same fields in REST and gRPC', () => {
    expect(restToProto(Object.keys(familyAttributeSchema.shape))).toEqual(fieldsOf('FamilyAttribute'));
  });

  it('every resource answers the same seven RPCs', () => {
    const plural: Record<string, string> = {
      Brand: 'Brands',
      CategoryTree: 'CategoryTrees',
      Category: 'Categories',
      Family: 'Families',
      Catalog: 'Catalogs',
    };
    for (const [message] of resources) {
      const service = pkg[`pim.catalog.v1.${plural[message]}Service`] as unknown as Record<string, unknown>;
      const rpcs = Object.keys(service).sort();
      expect(rpcs).toEqual(
        [
          `BatchGet${plural[message]}`,
          `Create${message}`,
          `Delete${message}`,
          `Get${message}`,
          `List${plural[message]}`,
          `Patch${message}`,
          `Update${message}`,
        ].sort(),
      );
    }
  });
});
