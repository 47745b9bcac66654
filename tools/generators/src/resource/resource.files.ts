import type { ResourceNames } from './resource.names';

const cap = (s: string) => `${s[0].toUpperCase()}${s.slice(1)}`;

/** libs/resources/src/<folder>.ts: the declaration, with a code and a name to start from. */
export const declarationTs = (r: ResourceNames) => `import { z } from 'zod';
import { codeViewSchema } from './codes';
import { field } from './declare/field';
import { defineResource } from './declare/resource';
import { nameSchema, taxonomyCodeSchema, translatePatchSchema, translateSchema } from './taxonomy';

/**
 * ${cap(r.labels)}, declared once: a code unique among live ${r.labels} and a name per language
 * to start from. Add fields here, in a migration and in the proto (docs/platform/add-a-field.md).
 */
export const ${r.one} = defineResource({
  collection: '${r.collection}',
  description: '${cap(r.label)}',
  fields: {
    code: field
      .of('string', { input: taxonomyCodeSchema, view: codeViewSchema() })
      .required()
      .searchable()
      .normalized(),
    name: field
      .of('translate', { input: nameSchema, patch: translatePatchSchema(z.string().min(1).max(1_000)), view: translateSchema })
      .required()
      .searchable(),
  },
});

/** ${r.aLabel[0].toUpperCase()}${r.aLabel.slice(1)} as the API shows it. */
export type ${r.one}View = z.infer<typeof ${r.one}.schemas.view>;
/** The writable fields of ${r.aLabel}. */
export type ${r.one}Input = z.infer<typeof ${r.one}.schemas.input>;
`;

/** The service and messages appended to the app's proto file. */
export const protoBlock = (r: ResourceNames) => `
// ${cap(r.labels)}: the seven calls of every record service.
service ${r.many}Service {
  // Creates ${r.aLabel}; its code must be free among live ${r.labels}.
  rpc Create${r.one}(Create${r.one}Request) returns (Create${r.one}Response);
  // Reads one live ${r.label}.
  rpc Get${r.one}(Get${r.one}Request) returns (Get${r.one}Response);
  // Replaces every writable field of ${r.aLabel}.
  rpc Update${r.one}(Update${r.one}Request) returns (Update${r.one}Response);
  // Applies a JSON merge patch (RFC 7396) to ${r.aLabel}.
  rpc Patch${r.one}(Patch${r.one}Request) returns (Patch${r.one}Response);
  // Soft-deletes ${r.aLabel}.
  rpc Delete${r.one}(Delete${r.one}Request) returns (Delete${r.one}Response);
  // Lists live ${r.labels} through the shared list query.
  rpc List${r.many}(List${r.many}Request) returns (List${r.many}Response);
  // Reads live ${r.labels} by ids and by codes at once; unknown ones are left out.
  rpc BatchGet${r.many}(BatchGet${r.many}Request) returns (BatchGet${r.many}Response);
}

// ${r.aLabel[0].toUpperCase()}${r.aLabel.slice(1)} as the API shows it.
message ${r.one} {
  // The record id (\`_id\` in the REST API).
  string id = 1;
  string code = 2;
  // Translate: language code → text.
  map<string, string> name = 3;
  // Incremented on every write; the REST API sends it as ETag.
  int32 version = 4;
  // ISO 8601 UTC with milliseconds.
  string created_at = 5;
  string updated_at = 6;
  optional string created_by_name = 7;
}

// The writable fields of ${r.aLabel} (create and replace).
message ${r.one}Input {
  string code = 1;
  map<string, string> name = 2;
}

message Create${r.one}Request {
  ${r.one}Input input = 1;
}

message Create${r.one}Response {
  ${r.one} data = 1;
}

message Get${r.one}Request {
  string id = 1;
}

message Get${r.one}Response {
  ${r.one} data = 1;
}

message Update${r.one}Request {
  string id = 1;
  ${r.one}Input input = 2;
  // When set, the write happens only if the current version matches (If-Match).
  optional int32 expected_version = 3;
}

message Update${r.one}Response {
  ${r.one} data = 1;
}

message Patch${r.one}Request {
  string id = 1;
  // RFC 7396 merge patch over the writable fields.
  google.protobuf.Struct patch = 2;
  optional int32 expected_version = 3;
}

message Patch${r.one}Response {
  ${r.one} data = 1;
}

message Delete${r.one}Request {
  string id = 1;
  optional int32 expected_version = 2;
}

message Delete${r.one}Response {
  // The ${r.label} as it was when deleted.
  ${r.one} data = 1;
}

message List${r.many}Request {
  pim.common.v1.ListQuery query = 1;
}

message List${r.many}Response {
  repeated ${r.one} data = 1;
  pim.common.v1.PageInfo page_info = 2;
}

message BatchGet${r.many}Request {
  // At most 1,000 ids and codes together.
  repeated string ids = 1;
  repeated string codes = 2;
}

message BatchGet${r.many}Response {
  repeated ${r.one} data = 1;
}
`;

/** apps/<app>/src/<app>.records.ts: how the app's records are stored. */
export const storeTs = (r: ResourceNames) => `import type { RecordStore } from '@pim/records';

/** How the ${r.app.name} app's records are stored: its events come from \`${r.app.name}\`. */
export const ${r.app.env}_STORE: RecordStore = { source: '${r.app.name}' };
`;

/** apps/<app>/src/entities/<folder>.entity.ts */
export const entityTs = (r: ResourceNames) => `import { Entity, Index } from 'typeorm';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { ${r.one} } from '@pim/resources';

/** ${r.aLabel[0].toUpperCase()}${r.aLabel.slice(1)}: the declared fields (\`${r.one}\` in @pim/resources) and the common record columns. */
@Entity({ name: '${r.collection}' })
@Index('UQ_${r.collection}_code_live', ['code'], { unique: true, where: 'deleted = false' })
@Index('IDX_${r.collection}_created_at', ['created_at', '_id'])
export class ${r.one}Entity extends declaredEntity(${r.one}, SearchableRecordEntity) {}
`;

/** apps/<app>/src/migrations/<ts>-create-<collection>.ts */
export const migrationTs = (
  r: ResourceNames,
  ts: number,
  pk: string,
) => `import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The ${r.collection} table: the common record columns, its search text, code (unique among live rows) and name. */
export class Create${r.many}${ts} implements MigrationInterface {
  name = 'Create${r.many}${ts}';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      \`CREATE TABLE "${r.collection}" ("_id" character(24) NOT NULL, "version" integer NOT NULL DEFAULT '1', \` +
        \`"created_at" TIMESTAMP WITH TIME ZONE NOT NULL, "updated_at" TIMESTAMP WITH TIME ZONE NOT NULL, "created_by_name" text, \` +
        \`"deleted" boolean NOT NULL DEFAULT false, "deleted_at" TIMESTAMP WITH TIME ZONE, "deleted_by" text, \` +
        \`"search_text" text NOT NULL, "code" text NOT NULL, "name" jsonb NOT NULL, CONSTRAINT "${pk}" PRIMARY KEY ("_id"))\`,
    );
    await q.query(\`CREATE UNIQUE INDEX "UQ_${r.collection}_code_live" ON "${r.collection}" ("code") WHERE deleted = false\`);
    await q.query(\`CREATE INDEX "IDX_${r.collection}_created_at" ON "${r.collection}" ("created_at", "_id")\`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(\`DROP TABLE "${r.collection}"\`);
  }
}
`;

/** apps/<app>/src/<folder>/<folder>.resource.ts */
export const resourceTs = (r: ResourceNames) => `import { declaredRecord } from '@pim/records';
import { ${r.one} } from '@pim/resources';
import { ${r.one}Entity } from '../entities/${r.folder}.entity';

/** ${cap(r.labels)} on the record engine: named by their code. Rules the declaration cannot say go in \`hooks\`. */
export const ${r.oneCamel}Record = declaredRecord(${r.one}, { entity: ${r.one}Entity, handle: 'code' });
`;

/** apps/<app>/src/<folder>/<folder>.grpc.ts */
export const grpcTs = (r: ResourceNames) => `import { ${r.app.camel} as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { ${r.one}Input, ${r.one}View } from '@pim/resources';
import type { ServiceRegistration } from '@pim/rpc';
import { mirrorCodec, recordHandlers, type RecordService } from '@pim/records';
import type { ${r.one}Entity } from '../entities/${r.folder}.entity';

/** gRPC handlers of pim.${r.app.proto}.v1.${r.many}Service. */
export function ${r.manyCamel}Grpc(
  service: RecordService<${r.one}Entity, ${r.one}View, ${r.one}Input>,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    mirrorCodec<${r.one}View, pb.${r.one}, pb.${r.one}Input>(),
    logger,
    { one: '${r.one}', many: '${r.many}' },
    (req: pb.BatchGet${r.many}Request) => req.codes ?? [],
  );
  const implementation: pb.${r.many}ServiceServer = {
    create${r.one}: h.create,
    get${r.one}: h.get,
    update${r.one}: h.update,
    patch${r.one}: h.patch,
    delete${r.one}: h.delete,
    list${r.many}: h.list,
    batchGet${r.many}: h.batchGet,
  };
  return { name: 'pim.${r.app.proto}.v1.${r.many}Service', definition: pb.${r.many}ServiceService, implementation };
}
`;

/** apps/<app>/src/<folder>/<folder>.contract.spec.ts */
export const contractSpecTs = (r: ResourceNames) => `import { PROTO_FILES } from '@pim/contracts';
import { ${r.one} } from '@pim/resources';
import { contractProblems } from '@pim/testing';
import { ${r.one}Entity } from '../entities/${r.folder}.entity';

// Declared once (libs/resources); the table and the messages must agree in names, types and optionality.
describe('${r.labels} contract: declaration, entity and proto messages', () => {
  it('${r.one} agrees with ${r.one}Entity and pim.${r.app.proto}.v1.${r.one} / ${r.one}Input', () => {
    expect(
      contractProblems({
        declaration: ${r.one},
        entity: ${r.one}Entity,
        protoFile: PROTO_FILES.${r.app.camel},
        message: 'pim.${r.app.proto}.v1.${r.one}',
        inputMessage: 'pim.${r.app.proto}.v1.${r.one}Input',
      }),
    ).toEqual([]);
  });
});
`;

/** apps/<app>/src/<folder>/<folder>.service.int.spec.ts */
export const serviceSpecTs = (r: ResourceNames) => `import type { DataSource } from 'typeorm';
import { ConflictError, NotFoundError, PreconditionFailedError } from '@pim/errors';
import { createDataSource, migrate } from '@pim/db';
import { RecordService } from '@pim/records';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { dataSourceOptions } from '../data-source';
import { ${r.app.env}_STORE } from '../${r.app.name}.records';
import type { ${r.one}Input, ${r.one}View } from '@pim/resources';
import type { ${r.one}Entity } from '../entities/${r.folder}.entity';
import { ${r.oneCamel}Record } from './${r.folder}.resource';

// ${cap(r.labels)} on the record engine against the real Postgres: writes, reads, lists and their events.
describe('${r.labels} (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let s: RecordService<${r.one}Entity, ${r.one}View, ${r.one}Input>;

  beforeAll(async () => {
    db = await createTestDatabase('${r.collection}');
    await migrate(dataSourceOptions(db.url));
    ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
    s = new RecordService(ds, ${r.oneCamel}Record, ${r.app.env}_STORE);
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('creates, reads, patches, lists and deletes, with versions, a unique code and one event per write', async () => {
    const created = await s.create({ code: 'first', name: { en: 'First' } });
    expect(created).toMatchObject({ code: 'first', name: { en: 'First' }, version: 1 });
    await expect(s.create({ code: 'first', name: { en: 'Again' } })).rejects.toBeInstanceOf(ConflictError);
    const patched = await s.patch(created._id, { name: { pt: 'Primeiro' } }, 1);
    expect(patched).toMatchObject({ name: { en: 'First', pt: 'Primeiro' }, version: 2 });
    await expect(s.patch(created._id, { name: { es: 'Primero' } }, 1)).rejects.toBeInstanceOf(PreconditionFailedError);
    const found = await s.list({ page: 1, limit: 10, skip: 0, sort: [], filters: [], search: 'primeiro', expand: [] });
    expect(found.data.map((v) => v._id)).toEqual([created._id]);
    await s.remove(created._id, 2);
    await expect(s.get(created._id)).rejects.toBeInstanceOf(NotFoundError);
    const events: { type: string }[] = await ds.query(
      \`SELECT envelope->>'type' AS type FROM outbox ORDER BY occurred_at, id\`,
    );
    expect(events.map((e) => e.type)).toEqual(['${r.collection}.created', '${r.collection}.updated', '${r.collection}.deleted']);
  });
});
`;

/** apps/gateway/src/routes/<app>.routes.ts, with its first resource. */
export const gatewayRoutesTs = (
  r: ResourceNames,
  port: number,
) => `import { ${r.app.camel} as pb } from '@pim/contracts';
import { ${r.one}, type ${r.one}Input, type ${r.one}View } from '@pim/resources';
import { createRpcClient, recordClient, type RecordClient } from '@pim/rpc';
import { declaredCodec } from '../http/declared.codec';
import { recordRoutes } from '../http/resource.routes';
import type { OwnerRoutes } from './owners';

/** The ${r.app.name} app's services as the gateway calls them. */
interface ${r.app.pascal}Clients {
  ${r.manyCamel}: RecordClient<pb.${r.one}, pb.${r.one}Input>;
  // generator:client-types
  close(): void;
}

/** The ${r.app.name} app's routes: its declared resources through the route factory. */
export const ${r.app.camel}Routes: OwnerRoutes = {
  app: '${r.app.name}',
  addressEnv: '${r.app.env}_GRPC_URL',
  defaultAddress: '127.0.0.1:${port}',
  clients: (opts): ${r.app.pascal}Clients => {
    const o = { service: '${r.app.name}', ...opts };
    const ${r.manyCamel} = createRpcClient(pb.${r.many}ServiceClient, o);
    // generator:clients
    return {
      ${r.manyCamel}: recordClient(${r.manyCamel}, pb.${r.many}ServiceService, { one: '${r.one}', many: '${r.many}', handles: 'codes' }),
      // generator:client-entries
      close: () => {
        ${r.manyCamel}.close();
        // generator:close
      },
    };
  },
  routes: (api, clients, limits) => {
    const c = clients as () => ${r.app.pascal}Clients;
    recordRoutes(
      api,
      {
        collection: '${r.collection}',
        schemas: ${r.one}.schemas,
        listDecl: ${r.one}.listDecl,
        client: () => c().${r.manyCamel},
        codec: declaredCodec<${r.one}View, pb.${r.one}, pb.${r.one}Input, ${r.one}Input>(${r.one}),
      },
      limits,
      {},
      {},
    );
    // generator:routes
  },
};
`;
