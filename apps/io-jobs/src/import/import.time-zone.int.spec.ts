import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DataSource } from 'typeorm';
import { attributes as apb, products as ppb } from '@pim/contracts';
import { createDataSource, migrate } from '@pim/db';
import { ValidationError } from '@pim/errors';
import { createLogger } from '@pim/logging';
import { RecordService } from '@pim/records';
import type { ImportView } from '@pim/resources';
import { createRpcClient } from '@pim/rpc';
import { LocalFileStorage } from '@pim/storage';
import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@pim/testing';
import { SCHEMA, dataSourceOptions } from '../data-source';
import { IO_JOBS_STORE } from '../io-jobs.records';
import { importTemplateRecord } from '../import-template/import-template.resource';
import { JobQueue, type QueueSpec } from '../jobs/job.queue';
import { catalogLink, type CatalogLink } from '../links/catalog.link';
import { ImportMoves } from './import.moves';
import { importRecord } from './import.resource';
import { ImportRunner } from './import.runner';
import { ImportUploads } from './import.upload';

const logger = createLogger({ service: 'time-zone-import-test', level: 'silent' });
/** The platform's zone in this test: neither UTC nor the zones the files name. */
const PLATFORM_ZONE = 'Europe/Lisbon';

// Date-times without an offset are a wall time somewhere: the import's time zone (named, else its
// template's, else the platform's), or the zone a column's header names. Against a real Postgres
// and a real catalog process.
describe('imports read date-times in their time zone (real Postgres, real catalog)', () => {
  let db: TestDatabase;
  let catalogDb: TestDatabase;
  let catalogProcess: AppProcess;
  let catalog: CatalogLink;
  let products: ReturnType<typeof createRpcClient<ppb.ProductsServiceClient>>;
  let ds: DataSource;
  let dir: string;
  let queue: JobQueue;
  let imports: RecordService<never, ImportView, never>;
  let uploads: ImportUploads;
  let runner: ImportRunner;
  const spec: QueueSpec = { name: 'imports', attempts: 1 };
  const templates = () => new RecordService(ds, importTemplateRecord, IO_JOBS_STORE);

  async function* messages(fileName: string, text: string, fields: Record<string, string> = {}) {
    yield { part: { $case: 'start' as const, value: { file_name: fileName } } };
    yield { part: { $case: 'chunk' as const, value: Buffer.from(text) } };
    yield { part: { $case: 'fields' as const, value: fields } };
  }

  const upload = (text: string, fields: Record<string, string> = {}) =>
    uploads.upload(messages('when.csv', text, fields));

  async function run(id: string): Promise<ImportView> {
    await new ImportMoves(imports as never, queue, spec).start(id);
    await runner.run(id, true);
    return imports.get(id);
  }

  const stored = async (code: string) =>
    (await products.batchGetProducts({ ids: [], codes: [code] })).data[0]?.attributes as Record<string, unknown>;

  beforeAll(async () => {
    catalogDb = await createTestDatabase('tzimport_catalog');
    catalogProcess = await startAppProcess('catalog', catalogDb.url, { COMPLETENESS_WORKER: 'false' });
    const opts = { service: 'catalog', address: catalogProcess.address, deadlineMs: 10_000 };
    products = createRpcClient(ppb.ProductsServiceClient, opts);
    const groups = createRpcClient(apb.AttributeGroupsServiceClient, opts);
    const attributes = createRpcClient(apb.AttributesServiceClient, opts);
    const group = (
      await groups.createAttributeGroup({ input: apb.AttributeGroupInput.fromPartial({ key: 'g', name: { en: 'G' } }) })
    ).data!;
    await attributes.createAttribute({
      input: apb.AttributeInput.fromPartial({
        key: 'when',
        name: { en: 'When' },
        groups: [{ id: group.id, required: false }],
        type: 'datetime',
        association: 'product',
        protected_by_lgpd: false,
      }),
    });
    for (const code of ['P-1', 'P-2', 'P-3'])
      await products.createProduct({
        input: ppb.ProductInput.fromPartial({ code, name: { en: code }, type: 'simple', attribute_groups: [group.id] }),
      });
    groups.close();
    attributes.close();
    catalog = catalogLink(catalogProcess.address);

    db = await createTestDatabase('tzimport');
    await migrate(dataSourceOptions(db.url));
    ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
    dir = await mkdtemp(join(tmpdir(), 'pim-tz-import-'));
    const storage = new LocalFileStorage(dir);
    queue = new JobQueue({ url: db.url, schema: SCHEMA, heartbeatSeconds: 10, superviseSeconds: 60, logger });
    await queue.start([spec]);
    imports = new RecordService(
      ds,
      importRecord({ storage, catalog, defaultTimeZone: PLATFORM_ZONE }),
      IO_JOBS_STORE,
    ) as never;
    uploads = new ImportUploads(imports as never, storage, 1_000_000);
    runner = new ImportRunner({ ds, imports: imports as never, storage, catalog, batchSize: 100, logger });
  });

  afterAll(async () => {
    products?.close();
    catalog?.close();
    await catalogProcess?.stop();
    await catalogDb?.drop();
    await queue?.stop(1_000);
    await ds?.destroy();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('records the zone named, else the template’s, else the platform’s; an unknown zone is refused', async () => {
    const template = await templates().create({
      name: 'Lojas SP',
      mapped_headers: { code: 'code', when: 'attributes.when' },
      time_zone: 'america/sao_paulo',
    });
    expect(template.time_zone).toBe('America/Sao_Paulo');
    await expect(
      templates().create({ name: 'Nowhere', mapped_headers: { code: 'code' }, time_zone: 'Mars/Olympus' }),
    ).rejects.toThrow(/time_zone.*is not a time zone/);

    const csv = 'code,when\nP-1,2024-02-01 10:20:30\n';
    const first = await upload(csv);
    expect(first.time_zone).toBe(PLATFORM_ZONE);
    // Found by its file name, which the upload (not the caller's input) gives it.
    const found = await imports.list({
      page: 1,
      limit: 10,
      skip: 0,
      sort: [],
      filters: [],
      search: 'when.csv',
      expand: [],
    });
    expect(found.data.map((i) => i._id)).toContain(first._id);
    const fromTemplate = await upload(csv, { from_template_id: template._id });
    expect(fromTemplate).toMatchObject({ status: 'mapped', time_zone: 'America/Sao_Paulo' });
    expect((await upload(csv, { from_template_id: template._id, time_zone: 'Asia/Tokyo' })).time_zone).toBe(
      'Asia/Tokyo',
    );
    // A later change is the caller's; naming the template again does not undo it.
    const patched = await imports.patch(fromTemplate._id, { time_zone: 'UTC' } as never);
    expect(patched.time_zone).toBe('UTC');
    const refused = await upload(csv, { time_zone: 'GMT-3 Brasília' }).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ValidationError);
    expect((refused as ValidationError).details).toEqual([
      expect.objectContaining({ field: 'time_zone', message: expect.stringMatching(/is not a time zone/) }),
    ]);
  });

  it('stores a wall time of São Paulo as its instant: 10:20:30 there is 13:20:30 UTC; an offset written keeps its own', async () => {
    const up = await upload('code,when\nP-1,2024-02-01 10:20:30\nP-2,01/02/2024 10:20:30+01:00\n', {
      time_zone: 'America/Sao_Paulo',
    });
    await imports.patch(up._id, { mapped_headers: { A: 'code', B: 'attributes.when' } } as never);
    expect(await run(up._id)).toMatchObject({ status: 'completed', commit_count: 2, time_zone: 'America/Sao_Paulo' });
    expect((await stored('P-1')).when).toBe('2024-02-01T13:20:30.000Z');
    expect((await stored('P-2')).when).toBe('2024-02-01T09:20:30.000Z');
  });

  it('maps the headers of its own exports by themselves, reading a date-time column in the zone its header names', async () => {
    const up = await upload(
      '_id,code,attributes.when (Asia/Tokyo),attributes.gone,updated_at (Asia/Tokyo)\n,P-3,2024-02-01 10:20:30,x,\n',
    );
    expect(up).toMatchObject({
      status: 'mapped',
      time_zone: PLATFORM_ZONE,
      mapped_headers: { A: '_id', B: 'code', C: 'attributes.when', E: 'updated_at' },
      logs: [
        expect.stringMatching(/^Columns mapped from their headers \(4\)/),
        "Column D (attributes.gone) was not mapped: no live attribute has the key 'gone'",
      ],
    });
    expect(await run(up._id)).toMatchObject({ status: 'completed', commit_count: 1, errors_count: 0 });
    expect((await stored('P-3')).when).toBe('2024-02-01T01:20:30.000Z');
  });
});
