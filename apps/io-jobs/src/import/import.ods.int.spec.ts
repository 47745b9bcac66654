import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { DataSource } from 'typeorm';
import { attributes as apb, products as ppb } from '@pim/contracts';
import { createDataSource, migrate } from '@pim/db';
import { createLogger } from '@pim/logging';
import { RecordService } from '@pim/records';
import type { ImportView } from '@pim/resources';
import { createRpcClient } from '@pim/rpc';
import { readRows, type Cell } from '@pim/sheets';
import { LocalFileStorage } from '@pim/storage';
import { createTestDatabase, startAppProcess, type TestDatabase } from '@pim/testing';
import { SCHEMA, dataSourceOptions } from '../data-source';
import { IO_JOBS_STORE } from '../io-jobs.records';
import { JobQueue, type QueueSpec } from '../jobs/job.queue';
import { catalogLink } from '../links/catalog.link';
import { errorFile } from './import.errors';
import { ImportMoves } from './import.moves';
import { importRecord } from './import.resource';
import { ImportRunner } from './import.runner';
import { ImportUploads } from './import.upload';

const logger = createLogger({ service: 'ods-import-test', level: 'silent' });
const FIXTURES = join(__dirname, '..', '..', '..', '..', 'libs', 'sheets', 'fixtures');
const CODES = ['P-1', 'P-2', 'P-3'];
/** What differs between two catalogs whatever was imported: ids (the products' and their attributes'), versions and times. */
const VOLATILE = new Set(['id', '_id', 'version', 'created_at', 'updated_at', 'attribute_groups']);
const comparable = (value: object): Record<string, unknown> =>
  Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !VOLATILE.has(k))
      .map(([k, v]) => [k, v && typeof v === 'object' && !Array.isArray(v) ? comparable(v as object) : v]),
  );

/** The typed fixture sheet's Products worksheet, column by column: what each column fills. */
const MAPPING = {
  A: 'code',
  B: 'name.en',
  C: 'attributes.price',
  D: 'attributes.discount',
  E: 'attributes.cost',
  F: 'attributes.launch',
  G: 'attributes.updated',
  H: 'enabled',
  I: 'description.en',
  J: 'attributes.width',
  K: 'attributes.height',
  L: 'attributes.notes',
};
const ATTRIBUTES: [key: string, type: string][] = [
  ['price', 'number'],
  ['discount', 'number'],
  ['cost', 'number'],
  ['launch', 'date'],
  ['updated', 'datetime'],
  ['width', 'number'],
  ['height', 'number'],
  ['notes', 'text'],
];

// LibreOffice's own format, imported end to end: the same typed sheet saved by LibreOffice as ODS,
// as XLSX and as CSV of its product table (libs/sheets/fixtures, made by
// tools/sheets/make-fixtures.sh) is uploaded, mapped and run into a real catalog each — one catalog
// per file, with the same attributes and products beforehand — and all three leave the products
// exactly alike. The CSV holds the cells as the sheet shows them (R$ 1,234.50, 15%, TRUE, dates as
// text) and has no merge: the header of K, under the title "size" merged over J:K, is empty.
describe('XLSX, ODS and CSV imports of one typed sheet store the same products (real Postgres, real catalogs)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let dir: string;
  let storage: LocalFileStorage;
  let queue: JobQueue;
  const spec: QueueSpec = { name: 'imports', attempts: 1 };

  /** An upload of a fixture file, in chunks as the gateway streams one. */
  async function* messages(file: string) {
    const bytes = readFileSync(join(FIXTURES, file));
    yield { part: { $case: 'start' as const, value: { file_name: file } } };
    for (let at = 0; at < bytes.length; at += 4_096)
      yield { part: { $case: 'chunk' as const, value: bytes.subarray(at, at + 4_096) } };
  }

  /**
   * A catalog of its own (database and process) with the fixture's attributes in a group and the
   * three products in it, the file uploaded, mapped and run into it; its import and products after.
   */
  async function importInto(
    world: string,
    file: string,
  ): Promise<{ uploaded: ImportView; done: ImportView; products: object[] }> {
    const catalogDb = await createTestDatabase(world);
    const catalogProcess = await startAppProcess('catalog', catalogDb.url, { COMPLETENESS_WORKER: 'false' });
    const opts = { service: 'catalog', address: catalogProcess.address, deadlineMs: 10_000 };
    const products = createRpcClient(ppb.ProductsServiceClient, opts);
    const groups = createRpcClient(apb.AttributeGroupsServiceClient, opts);
    const attributes = createRpcClient(apb.AttributesServiceClient, opts);
    const catalog = catalogLink(catalogProcess.address);
    try {
      const group = (
        await groups.createAttributeGroup({
          input: apb.AttributeGroupInput.fromPartial({ key: 'sheet', name: { en: 'Sheet' } }),
        })
      ).data!;
      for (const [key, type] of ATTRIBUTES)
        await attributes.createAttribute({
          input: apb.AttributeInput.fromPartial({
            key,
            name: { en: key },
            groups: [{ id: group.id, required: false }],
            type,
            association: 'product',
            protected_by_lgpd: false,
          }),
        });
      for (const code of CODES)
        await products.createProduct({
          input: ppb.ProductInput.fromPartial({
            code,
            name: { en: `Old ${code}` },
            type: 'simple',
            attribute_groups: [group.id],
          }),
        });

      const imports = new RecordService(ds, importRecord({ storage, catalog }), IO_JOBS_STORE);
      const uploaded = await new ImportUploads(imports, storage, 10_000_000).upload(messages(file));
      await imports.patch(uploaded._id, { mapped_headers: MAPPING });
      await new ImportMoves(imports, queue, spec).start(uploaded._id);
      // Batches of two: the first ends just above the empty row 6, so the next starts past its
      // checkpoint (a run used to stop there, stuck in processing, when the checkpoint was taken
      // from the batch's first row instead of from the batch before).
      await new ImportRunner({ ds, imports, storage, catalog, batchSize: 2, logger }).run(uploaded._id, true);
      const done = await imports.get(uploaded._id);
      const stored = (await products.batchGetProducts({ ids: [], codes: CODES })).data
        .map(comparable)
        .sort((a, b) => String(a.code).localeCompare(String(b.code)));
      return { uploaded, done, products: stored };
    } finally {
      for (const client of [products, groups, attributes]) client.close();
      catalog.close();
      await catalogProcess.stop();
      await catalogDb.drop();
    }
  }

  beforeAll(async () => {
    db = await createTestDatabase('odsimport');
    await migrate(dataSourceOptions(db.url));
    ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
    dir = await mkdtemp(join(tmpdir(), 'pim-ods-import-'));
    storage = new LocalFileStorage(dir);
    queue = new JobQueue({ url: db.url, schema: SCHEMA, heartbeatSeconds: 10, superviseSeconds: 60, logger });
    await queue.start([spec]);
  });

  afterAll(async () => {
    await queue?.stop(1_000);
    await ds?.destroy();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('uploads the ODS with every worksheet listed and the product table chosen, and imports the XLSX, ODS and CSV to the same products', async () => {
    const ods = await importInto('odsimport-ods', 'products.ods');
    expect(ods.uploaded).toMatchObject({
      file_type: 'ods',
      worksheets: [
        { id: '1', name: 'Read me', header_row: 1, rows_count: 1 },
        { id: '2', name: 'Products', header_row: 3, rows_count: 3 },
      ],
      file_worksheet_id: '2',
      file_worksheet_name: 'Products',
      file_header_row: 3,
      columns_count: 12,
      rows_count: 3,
    });
    expect(ods.done).toMatchObject({ status: 'completed', proccess_count: 3, commit_count: 3, errors_count: 0 });
    const xlsx = await importInto('odsimport-xlsx', 'products.xlsx');
    expect(xlsx.done).toMatchObject({ status: 'completed', commit_count: 3, errors_count: 0 });
    expect(xlsx.uploaded).toMatchObject({
      file_type: 'xlsx',
      worksheets: ods.uploaded.worksheets,
      file_worksheet_id: '2',
    });

    const csv = await importInto('odsimport-csv', 'products.csv');
    expect(csv.uploaded).toMatchObject({
      file_type: 'csv',
      worksheets: [{ id: '1', name: 'products', header_row: 3, rows_count: 3 }],
      file_worksheet_id: '1',
      file_header_row: 3,
      columns_count: 12,
      rows_count: 3,
    });
    // K is mappable by its letter though its header cell is empty (no merge in a CSV).
    expect(csv.uploaded.headers?.slice(9)).toEqual([
      { column: 'J', label: 'size' },
      { column: 'K', label: '' },
      { column: 'L', label: 'notes' },
    ]);
    expect(csv.done).toMatchObject({ status: 'completed', proccess_count: 3, commit_count: 3, errors_count: 0 });

    expect(ods.products).toEqual(xlsx.products);
    expect(csv.products).toEqual(xlsx.products);
    expect(ods.products).toMatchObject([
      {
        code: 'P-1',
        name: { en: 'Cup' },
        description: { en: 'Big   cup' },
        enabled: true,
        attributes: {
          price: 12.5,
          discount: 0.15,
          cost: 3.2,
          launch: '2024-01-31',
          updated: expect.stringMatching(/^2024-02-01T10:20:30(\.000)?Z$/),
          width: 10,
          height: 10,
        },
      },
      {
        code: 'P-2',
        description: { en: 'Line onetabbed\nLine twoafter a break' },
        enabled: false,
        attributes: { price: 0, discount: 0, cost: 1234.5, width: 8, height: 9.5, notes: 'fragile' },
      },
      {
        code: 'P-3',
        name: { en: 'Pão de açúcar' },
        description: { en: '“Quoted”, with a comma' },
        attributes: { price: 1.99 },
      },
    ]);
  });

  it('writes an ODS import’s error file as XLSX, and refuses a flat ODS naming it', async () => {
    const file = errorFile(ds, {
      _id: '6740a1b2c3d4e5f601234567',
      file_type: 'ods',
      file_name: 'products.ods',
      headers: [{ column: 'A', label: 'code' }],
    });
    expect(file.fileName).toBe('products-errors.xlsx');
    expect(file.contentType).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    const chunks: Buffer[] = [];
    for await (const chunk of file.bytes) chunks.push(chunk);
    const rows: Cell[][] = [];
    for await (const r of readRows({ format: 'xlsx', open: async () => Readable.from(chunks) }, undefined))
      rows.push(r.cells);
    expect(rows).toEqual([['code', 'Problems']]);

    const imports = new RecordService(
      ds,
      importRecord({ storage, catalog: catalogLink('127.0.0.1:1') }),
      IO_JOBS_STORE,
    );
    await expect(
      new ImportUploads(imports, storage, 10_000_000).upload(messages('products.fods')),
    ).rejects.toMatchObject({
      message: "'products.fods' is a flat OpenDocument spreadsheet (.fods), which is not read",
      solution: expect.stringMatching(/^Save it as \.xlsx, \.ods or \.csv/),
    });
  });
});
