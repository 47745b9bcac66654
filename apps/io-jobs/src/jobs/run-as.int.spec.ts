import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { attributes as apb, products as ppb, taxonomy as tpb } from '@pim/contracts';
import { createDataSource, migrate } from '@pim/db';
import { createLogger, runWithContext, type Actor } from '@pim/logging';
import { RecordService } from '@pim/records';
import type { ExportInput, ExportView, ImportInput, ImportView } from '@pim/resources';
import { createRpcClient } from '@pim/rpc';
import { readRows, type Cell } from '@pim/sheets';
import { LocalFileStorage } from '@pim/storage';
import { createTestDatabase, startAppProcess, type AppProcess, type TestDatabase } from '@pim/testing';
import { SCHEMA, dataSourceOptions } from '../data-source';
import type { ExportEntity } from '../entities/export.entity';
import type { ImportEntity } from '../entities/import.entity';
import { ExportMoves } from '../export/export.moves';
import { exportRecord } from '../export/export.resource';
import { ExportRunner } from '../export/export.runner';
import { ImportMoves } from '../import/import.moves';
import { importRecord } from '../import/import.resource';
import { ImportRunner } from '../import/import.runner';
import { ImportUploads } from '../import/import.upload';
import { IO_JOBS_STORE } from '../io-jobs.records';
import { catalogLink, type CatalogLink } from '../links/catalog.link';
import { workflowLink, type WorkflowLink } from '../links/workflow.link';
import { JobQueue, type QueueSpec } from './job.queue';

const logger = createLogger({ service: 'run-as-test', level: 'silent' });
const G1 = 'aaaaaaaaaaaaaaaaaaaaaaa1';
const G2 = 'aaaaaaaaaaaaaaaaaaaaaaa2';
const ANA = '6740a1b2c3d4e5f601234561';
const BOB = '6740a1b2c3d4e5f601234562';
/** A user whose users groups see catalog c1 only. */
const ana: Actor = { user_id: ANA, user_name: 'Ana', access: { user_id: ANA, all_products: false, groups: [G1] } };
/** A user whose users groups see catalog c2 only. */
const bob: Actor = { user_id: BOB, user_name: 'Bob', access: { user_id: BOB, all_products: false, groups: [G2] } };
const as = <T>(actor: Actor, fn: () => Promise<T>): Promise<T> =>
  runWithContext({ requestId: `request-of-${actor.user_name}`, actor }, fn);

// Exports and imports run as the user who set them to work (their creator; the user who started
// the import), against the real Postgres, pg-boss and a real catalog process: the caller is kept on
// the record (`run_as`) and the worker's catalog calls carry it, so the catalog keeps what they
// read and write to the catalogs of that user's groups.
describe('jobs run as who set them to work (real Postgres, real catalog)', () => {
  let catalogDb: TestDatabase;
  let catalogProcess: AppProcess;
  let catalogSql: Client;
  let db: TestDatabase;
  let ds: DataSource;
  let dir: string;
  let storage: LocalFileStorage;
  let queue: JobQueue;
  let catalog: CatalogLink;
  let workflow: WorkflowLink;
  let products: ReturnType<typeof createRpcClient<ppb.ProductsServiceClient>>;
  let exports: RecordService<ExportEntity, ExportView, ExportInput>;
  let imports: RecordService<ImportEntity, ImportView, ImportInput>;
  let exportMoves: ExportMoves;
  let importMoves: ImportMoves;
  let exportRunner: ExportRunner;
  let importRunner: ImportRunner;
  const exportSpec: QueueSpec = { name: 'exports', attempts: 1 };
  const importSpec: QueueSpec = { name: 'imports', attempts: 1 };
  const closers: (() => void)[] = [];
  const metrics = new Registry();
  /** Runs counted so far by `kind/outcome`. */
  const outcomes = async (): Promise<Record<string, number>> => {
    const text = await metrics.metrics();
    return Object.fromEntries(
      [...text.matchAll(/^pim_io_jobs_jobs_total\{kind="(\w+)",outcome="(\w+)"\} (\d+)$/gm)].map((m) => [
        `${m[1]}/${m[2]}`,
        Number(m[3]),
      ]),
    );
  };

  /** What the row holds as who the job runs as. */
  const runAsOf = async (table: 'exports' | 'imports', id: string): Promise<Actor | null> =>
    (await ds.query(`SELECT "run_as" FROM "${table}" WHERE "_id" = $1`, [id]))[0].run_as;

  /** Runs an export's job as a worker does (outside any request) and reads its file back. */
  async function written(id: string): Promise<{ header: Cell[]; codes: string[] }> {
    await exportRunner.run(id, true);
    const done = await exports.get(id);
    expect({ status: done.status, logs: done.logs }).toMatchObject({ status: 'completed' });
    const rows: Cell[][] = [];
    for await (const r of readRows({ format: 'csv', open: () => storage.get(done.file_key) }, undefined))
      rows.push(r.cells);
    const code = rows[0].indexOf('code');
    expect(code).toBeGreaterThanOrEqual(0);
    return {
      header: rows[0],
      codes: rows
        .slice(1)
        .map((r) => String(r[code]))
        .sort(),
    };
  }

  /** Names of the products by code, as the catalog holds them (read unrestricted). */
  const names = async (...codes: string[]) =>
    Object.fromEntries(
      (await products.batchGetProducts({ ids: [], codes })).data.map((p) => [p.code, p.name?.en]),
    ) as Record<string, string | undefined>;

  /** An import of a CSV of `code,name` rows, uploaded and mapped (code, name.en), not started. */
  async function mappedImport(rows: [string, string][]): Promise<ImportView> {
    const csv = ['code,name', ...rows.map((r) => r.join(','))].join('\r\n') + '\r\n';
    async function* messages() {
      yield { part: { $case: 'start' as const, value: { file_name: 'names.csv' } } };
      yield { part: { $case: 'chunk' as const, value: Buffer.from(csv, 'utf8') } };
    }
    const uploaded = await new ImportUploads(imports, storage, 1_000_000).upload(messages());
    const mapped = await imports.patch(uploaded._id, { mapped_headers: { A: 'code', B: 'name.en' } });
    expect(mapped.status).toBe('mapped');
    return mapped;
  }

  beforeAll(async () => {
    catalogDb = await createTestDatabase('runas-catalog');
    catalogProcess = await startAppProcess('catalog', catalogDb.url, { COMPLETENESS_WORKER: 'false' });
    catalogSql = new Client({ connectionString: catalogDb.url });
    await catalogSql.connect();
    const opts = { service: 'catalog', address: catalogProcess.address, deadlineMs: 10_000 };
    products = createRpcClient(ppb.ProductsServiceClient, opts);
    const catalogs = createRpcClient(tpb.CatalogsServiceClient, opts);
    const groups = createRpcClient(apb.AttributeGroupsServiceClient, opts);
    const attributes = createRpcClient(apb.AttributesServiceClient, opts);
    closers.push(
      () => products.close(),
      () => catalogs.close(),
      () => groups.close(),
      () => attributes.close(),
    );

    // The catalog's world: c1 seen by G1, c2 by G2 (users groups the workflow app would check are
    // written straight, as a fixture), a product in each and one in none; only c2's product has a
    // value of `c2_note`.
    const group = (
      await groups.createAttributeGroup({
        input: apb.AttributeGroupInput.fromPartial({ key: 'notes', name: { en: 'Notes' } }),
      })
    ).data!;
    await attributes.createAttribute({
      input: apb.AttributeInput.fromPartial({
        key: 'c2_note',
        name: { en: 'Note' },
        groups: [{ id: group.id, required: false }],
        type: 'text',
        association: 'product',
        protected_by_lgpd: false,
      }),
    });
    const catalogOf = async (code: string, userGroup: string) => {
      const made = (await catalogs.createCatalog({ input: tpb.CatalogInput.fromPartial({ code, name: { en: code } }) }))
        .data!;
      await catalogSql.query(`UPDATE catalog.catalogs SET user_groups = $1 WHERE _id = $2`, [[userGroup], made.id]);
      return made.id;
    };
    const c1 = await catalogOf('c1', G1);
    const c2 = await catalogOf('c2', G2);
    const product = (code: string, fields: Partial<ppb.ProductInput> = {}) =>
      products.createProduct({
        input: ppb.ProductInput.fromPartial({ code, name: { en: `Old ${code}` }, type: 'simple', ...fields }),
      });
    await product('in_c1', { catalogs: [{ id: c1, user_groups: [] }] });
    await product('in_c2', {
      catalogs: [{ id: c2, user_groups: [] }],
      attribute_groups: [group.id],
      attributes: { c2_note: 'only in c2' },
    });
    await product('in_none');

    db = await createTestDatabase('runas');
    await migrate(dataSourceOptions(db.url));
    ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
    dir = await mkdtemp(join(tmpdir(), 'pim-run-as-'));
    storage = new LocalFileStorage(dir);
    queue = new JobQueue({ url: db.url, schema: SCHEMA, heartbeatSeconds: 10, superviseSeconds: 60, logger });
    await queue.start([exportSpec, importSpec]);
    catalog = catalogLink(catalogProcess.address);
    workflow = workflowLink('127.0.0.1:1'); // no approval filter here: never called
    exports = new RecordService(ds, exportRecord({ queue, spec: exportSpec, catalog }), IO_JOBS_STORE);
    imports = new RecordService(ds, importRecord({ storage, catalog }), IO_JOBS_STORE);
    exportMoves = new ExportMoves(exports, queue, exportSpec, storage);
    importMoves = new ImportMoves(imports, queue, importSpec);
    exportRunner = new ExportRunner({
      ds,
      exports,
      storage,
      catalog,
      workflow,
      batchSize: 2,
      maxBytes: 10_000_000,
      retentionMs: 3_600_000,
      progressMs: 60_000,
      logger,
      metrics,
    });
    importRunner = new ImportRunner({ ds, imports, storage, catalog, batchSize: 10, logger, metrics });
  });

  afterAll(async () => {
    for (const close of closers) close();
    catalog?.close();
    workflow?.close();
    await queue?.stop(1_000);
    await ds?.destroy();
    await db?.drop();
    await catalogSql?.end();
    await catalogProcess?.stop();
    await catalogDb?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('keeps as run_as what the creating request held (NULL without a caller), never shows it, and a retry keeps the creator', async () => {
    const byAna = await as(ana, () => exports.create({ file_type: 'csv' }));
    expect(byAna).not.toHaveProperty('run_as');
    expect(await runAsOf('exports', byAna._id)).toEqual(ana);
    expect((await exports.get(byAna._id)).created_by_name).toBe('Ana');

    const unrestricted = { user_name: 'Admin' };
    const byAdmin = await as(unrestricted, () => exports.create({ file_type: 'csv' }));
    expect(await runAsOf('exports', byAdmin._id)).toEqual(unrestricted);
    const bare = await exports.create({ file_type: 'csv' });
    expect(await runAsOf('exports', bare._id)).toBeNull();

    // Retried by another user (one who sees every export), it still runs as its creator; a
    // restricted user other than the creator does not see it at all.
    await exports.mutate(byAna._id, undefined, (r) => void (r.status = 'failed'));
    await expect(as(bob, () => exportMoves.retry(byAna._id))).rejects.toThrow(`No export with _id '${byAna._id}'`);
    const retried = await as(unrestricted, () => exportMoves.retry(byAna._id));
    expect(retried).toMatchObject({ status: 'pending' });
    expect(retried).not.toHaveProperty('run_as');
    expect(await runAsOf('exports', byAna._id)).toEqual(ana);

    const events: { envelope: unknown }[] = await ds.query(`SELECT envelope FROM outbox`);
    expect(events.length).toBeGreaterThan(0);
    expect(JSON.stringify(events)).not.toContain('run_as');
  });

  it('writes into an export the products its creator’s groups see: one catalog’s for a restricted creator, all of them for none', async () => {
    const byAna = await as(ana, () => exports.create({ file_type: 'csv' }));
    const anaFile = await written(byAna._id);
    expect(anaFile.codes).toEqual(['in_c1']);
    // Its default columns come from describing what Ana sees: c2's attribute is not among them.
    expect(anaFile.header).not.toContain('attributes.c2_note');
    expect((await exports.get(byAna._id)).metadata).toMatchObject({ total_products: 1 });

    const byBob = await as(bob, () => exports.create({ file_type: 'csv' }));
    const bobFile = await written(byBob._id);
    expect(bobFile.codes).toEqual(['in_c2']);
    expect(bobFile.header).toContain('attributes.c2_note');

    const everyone = await exports.create({ file_type: 'csv' });
    expect(await runAsOf('exports', everyone._id)).toBeNull();
    const all = await written(everyone._id);
    expect(all.codes).toEqual(['in_c1', 'in_c2', 'in_none']);
    expect(all.header).toContain('attributes.c2_note');

    // A creator one of whose groups sees every product.
    const seesAll: Actor = { user_id: ANA, user_name: 'Ana', access: { user_id: ANA, all_products: true, groups: [] } };
    const byAll = await as(seesAll, () => exports.create({ file_type: 'csv' }));
    expect((await written(byAll._id)).codes).toEqual(['in_c1', 'in_c2', 'in_none']);
    expect((await outcomes())['export/completed']).toBe(4);
  });

  it('writes an import as the user who started it: rows naming products out of their catalogs are refused with the catalog’s error', async () => {
    // Uploaded and mapped by Ana (a restricted user sees only her own imports); started by her,
    // whose groups see c1 only.
    const started = await as(ana, () =>
      mappedImport([
        ['in_c1', 'Kettle by Ana'],
        ['in_c2', 'Mug by Ana'],
        ['in_none', 'Nothing by Ana'],
      ]),
    );
    const queued = await as(ana, () => importMoves.start(started._id));
    expect(queued).toMatchObject({ status: 'queued' });
    expect(queued).not.toHaveProperty('run_as');
    expect(await runAsOf('imports', started._id)).toEqual(ana);

    await importRunner.run(started._id, true);
    const done = await imports.get(started._id);
    expect({ status: done.status, logs: done.logs }).toMatchObject({ status: 'completed_with_errors' });
    expect(done).toMatchObject({ proccess_count: 3, commit_count: 1, errors_count: 2 });
    const refused: { row_number: number; problems: string }[] = await ds.query(
      `SELECT row_number, problems FROM import_errors WHERE import_id = $1 ORDER BY row_number`,
      [started._id],
    );
    expect(refused.map((r) => r.row_number)).toEqual([3, 4]);
    for (const r of refused) expect(r.problems).toMatch(/names a product your users groups cannot see/);
    expect(await names('in_c1', 'in_c2', 'in_none')).toEqual({
      in_c1: 'Kettle by Ana',
      in_c2: 'Old in_c2',
      in_none: 'Old in_none',
    });

    // The same rows started with no caller (an admin's key bound to no user) write every product.
    const again = await mappedImport([
      ['in_c1', 'Kettle by all'],
      ['in_c2', 'Mug by all'],
    ]);
    await importMoves.start(again._id);
    expect(await runAsOf('imports', again._id)).toBeNull();
    await importRunner.run(again._id, true);
    expect(await imports.get(again._id)).toMatchObject({ status: 'completed', commit_count: 2, errors_count: 0 });
    expect(await outcomes()).toMatchObject({ 'import/completed_with_errors': 1, 'import/completed': 1 });
    expect(await names('in_c1', 'in_c2')).toEqual({ in_c1: 'Kettle by all', in_c2: 'Mug by all' });
  });

  it('shows progress as new versions, each with its updated event: every import batch and a running export’s counts', async () => {
    /** The record's events, oldest first: type, version and what `pick` reads of the data. */
    const eventsOf = async (id: string, pick: (data: Record<string, unknown>) => unknown) =>
      (
        (await ds.query(`SELECT envelope FROM outbox ORDER BY occurred_at, id`)) as {
          envelope: { type: string; data: Record<string, unknown> };
        }[]
      )
        .filter((r) => r.envelope.data._id === id)
        .map(({ envelope: e }) => [e.type, e.data.version, pick(e.data)]);

    const started = await mappedImport([
      ['in_c1', 'Kettle in batches'],
      ['in_c2', 'Mug in batches'],
      ['in_none', 'Nothing in batches'],
    ]);
    await importMoves.start(started._id);
    await new ImportRunner({ ds, imports, storage, catalog, batchSize: 1, logger }).run(started._id, true);
    const done = await imports.get(started._id);
    expect(done).toMatchObject({ status: 'completed', proccess_count: 3, commit_count: 3, version: 8 });
    expect(await eventsOf(started._id, (d) => [d.status, d.proccess_count])).toEqual([
      ['imports.created', 1, ['mapped', 0]],
      ['imports.updated', 2, ['mapped', 0]],
      ['imports.updated', 3, ['queued', 0]],
      ['imports.updated', 4, ['processing', 0]],
      ['imports.updated', 5, ['processing', 1]],
      ['imports.updated', 6, ['processing', 2]],
      ['imports.updated', 7, ['processing', 3]],
      ['imports.completed', 8, ['completed', 3]],
    ]);

    const e = await exports.create({ file_type: 'csv' });
    await new ExportRunner({
      ds,
      exports,
      storage,
      catalog,
      workflow,
      batchSize: 1,
      maxBytes: 10_000_000,
      retentionMs: 3_600_000,
      progressMs: 0,
      logger,
    }).run(e._id, true);
    expect(await exports.get(e._id)).toMatchObject({ status: 'completed', rows_count: 3, version: 6 });
    expect(await eventsOf(e._id, (d) => [d.status, (d.metadata as { total_products: number }).total_products])).toEqual(
      [
        ['exports.created', 1, ['pending', 0]],
        ['exports.updated', 2, ['in_progress', 0]],
        ['exports.updated', 3, ['in_progress', 1]],
        ['exports.updated', 4, ['in_progress', 2]],
        ['exports.updated', 5, ['in_progress', 3]],
        ['exports.completed', 6, ['completed', 3]],
      ],
    );
  });
});
