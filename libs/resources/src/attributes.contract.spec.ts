import { loadSync } from '@grpc/proto-loader';
import { PROTO_FILES, PROTO_ROOT } from '@pim/contracts';
import { attributeLinkViewSchema, attributeSchemas } from './attributes';

// The REST schemas (zod) and the gRPC messages describe the same fields; this keeps them in step.
const pkg = loadSync(PROTO_FILES.attributes, { includeDirs: [PROTO_ROOT], keepCase: true });
const fieldsOf = (message: string): string[] =>
  (pkg[`pim.catalog.v1.${message}`] as unknown as { type: { field: { name: string }[] } }).type.field
    .map((f) => f.name)
    .sort();
const restToProto = (keys: string[]) => keys.map((k) => (k === '_id' ? 'id' : k)).sort();

const resources = [['Attribute', 'Attributes', attributeSchemas]] as const;

describe('attributes contract: zod schemas vs proto messages', () => {
  it.each(resources)('%s has the same fields in REST and gRPC', (message, _many, schemas) => {
    expect(restToProto(Object.keys(schemas.view.shape))).toEqual(fieldsOf(message));
  });

  it.each(resources)(
    '%sInput has the same fields in REST and gRPC, and a patch may touch each of them',
    (message, _many, schemas) => {
      expect(restToProto(Object.keys(schemas.input.shape))).toEqual(fieldsOf(`${message}Input`));
      expect(Object.keys(schemas.patch.shape).sort()).toEqual(Object.keys(schemas.input.shape).sort());
    },
  );

  it('the nested shapes match: links', () => {
    expect(restToProto(Object.keys(attributeLinkViewSchema.shape))).toEqual(fieldsOf('AttributeLink'));
  });

  it.each(resources)('%s answers the same seven RPCs as every catalog resource', (message, many) => {
    const service = pkg[`pim.catalog.v1.${many}Service`] as unknown as Record<string, unknown>;
    expect(Object.keys(service).sort()).toEqual(
      [
        `BatchGet${many}`,
        `Create${message}`,
        `Delete${message}`,
        `Get${message}`,
        `List${many}`,
        `Patch${message}`,
        `Update${message}`,
      ].sort(),
    );
  });
});
