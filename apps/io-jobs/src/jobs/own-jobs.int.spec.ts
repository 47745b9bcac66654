import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { DataSource } from 'typeorm';
import { NotFoundError } from '@pim/errors';
import { createDataSource, migrate } from '@pim/db';
import { newId } from '@pim/ids';
import { createLogger, runWithContext, type Actor } from '@pim/logging';
import type { ListQuery } from '@pim/query';
import { RecordService } from '@pim/records';
import type { ExportInput, ExportView, ImportInput, ImportView } from '@pim/resources';
import { LocalFileStorage } from '@pim/storage';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { SCHEMA, dataSourceOptions } from '../data-source';
import type { ExportEntity } from '../entities/export.entity';
import type { ImportEntity } from '../entities/import.entity';
import { ExportMoves } from '../export/export.moves';
import { exportRecord } from '../export/export.resource';
import { ImportMoves } from '../import/import.moves';
import { importRecord } from '../import/import.resource';
import { ImportUploads } from '../import/import.upload';
import { IO_JOBS_STORE } from '../io-jobs.records';
import { catalogLink } from '../links/catalog.link';
import { JobQueue, type QueueSpec } from './job.queue';

const logger = createLogger({ service: 'own-jobs-test', level: 'silent' });
const ANA = '6740a1b2c3d4e5f6000000a1';
const BOB = '6740a1b2c3d4e5f6000000b2';
const CARLA = '6740a1b2c3d4e5f6000000c3';
/** Restricted by users groups (they see some products, not all). */
const ana: Actor = { user_id: ANA, user_name: 'Ana', access: { user_id: ANA, all_products: false, groups: ['g1'] } };
const bob: Actor = { user_id: BOB, user_name: 'Bob', access: { user_id: BOB, all_products: false, groups: ['g2'] } };
/** In a users group that sees every product: unrestricted. */
const carla: Actor = { user_id: CARLA, user_name: 'Carla', access: { user_id: CARLA, all_products: true, groups: [] } };
/** An admin key (or a key bound to no user): no access, unrestricted. */
const admin: Actor = { user_name: 'Admin' };
type Caller = Actor | null;
const as = <T>(actor: Caller, fn: () => Promise<T>): Promise<T> =>
  actor ? runWithContext({ requestId: `request-of-${actor.user_name}`, actor }, fn) : fn();

const everything = (limit = 100): ListQuery => ({
  page: 1,
  limit,
  skip: 0,
  sort: [{ field: '_id', direction: 'asc' }],
  filters: [],
  search: undefined,
  expand: [],
});

// Exports and imports belong to whom they run as (docs/decisions/access.md): a caller restricted by
// users groups sees only their own — others are absent from lists and totals and are the very 404
// of an id no record has, for every call by id — while unrestricted callers see every one.
describe('a restricted caller sees only their own exports and imports (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let dir: string;
  let storage: LocalFileStorage;
  let queue: JobQueue;
  let exports: RecordService<ExportEntity, ExportView, ExportInput>;
  let imports: RecordService<ImportEntity, ImportView, ImportInput>;
  let exportMoves: ExportMoves;
  let importMoves: ImportMoves;
  const exportSpec: QueueSpec = { name: 'exports', attempts: 1 };
  const importSpec: QueueSpec = { name: 'imports', attempts: 1 };
  // Exports without headers and imports mapping code and name ask the catalog nothing.
  const catalog = catalogLink('127.0.0.1:1');

  /** The error of a call, or undefined when it succeeds. */
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e,
    );
  /** Expects the 404 the caller gets for an id no record has, naming this id. */
  async function expectNoSuch(label: string, id: string, call: Promise<unknown>): Promise<void> {
    const err = await failure(call);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err).toMatchObject({ message: `No ${label} with _id '${id}'` });
  }
  const exportRow = async (id: string) =>
    (await ds.query(`SELECT status, version, deleted FROM exports WHERE _id = $1`, [id]))[0];
  const importRow = async (id: string) =>
    (await ds.query(`SELECT status, version, deleted, mapped_headers FROM imports WHERE _id = $1`, [id]))[0];

  /** An import of a CSV uploaded (and mapped: code, name.en) by `actor`. */
  async function mappedImport(actor: Caller): Promise<ImportView> {
    async function* messages() {
      yield { part: { $case: 'start' as const, value: { file_name: 'names.csv' } } };
      yield { part: { $case: 'chunk' as const, value: Buffer.from('code,name\r\nA,Lamp\r\n', 'utf8') } };
    }
    return as(actor, async () => {
      const uploaded = await new ImportUploads(imports, storage, 1_000_000).upload(messages());
      return imports.patch(uploaded._id, { mapped_headers: { A: 'code', B: 'name.en' } });
    });
  }

  beforeAll(async () => {
    db = await createTestDatabase('own-jobs');
    await migrate(dataSourceOptions(db.url));
    ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
    dir = await mkdtemp(join(tmpdir(), 'pim-own-jobs-'));
    storage = new LocalFileStorage(dir);
    queue = new JobQueue({ url: db.url, schema: SCHEMA, heartbeatSeconds: 10, superviseSeconds: 60, logger });
    await queue.start([exportSpec, importSpec]);
    exports = new RecordService(ds, exportRecord({ queue, spec: exportSpec, catalog }), IO_JOBS_STORE);
    imports = new RecordService(ds, importRecord({ storage, catalog }), IO_JOBS_STORE);
    exportMoves = new ExportMoves(exports, queue, exportSpec, storage);
    importMoves = new ImportMoves(imports, queue, importSpec);
  });

  afterAll(async () => {
    catalog.close();
    await queue?.stop(1_000);
    await ds?.destroy();
    await db?.drop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('lists, totals and reads exports: a restricted user their own, everyone else all of them', async () => {
    await ds.query(`DELETE FROM exports`);
    const made: Record<string, ExportView> = {};
    for (const [name, actor] of Object.entries({ ana, bob, carla, admin, none: null }))
      made[name] = await as(actor, () => exports.create({ file_type: 'csv' }));
    // Ana made a second one: a page of one shows one record, the total counts both.
    const anaAgain = await as(ana, () => exports.create({ file_type: 'csv' }));

    const page = await as(ana, () => exports.list(everything(1)));
    expect(page.total).toBe(2);
    expect(page.data.map((e) => e._id)).toEqual([made.ana._id]);
    expect((await as(ana, () => exports.list(everything()))).data.map((e) => e._id)).toEqual([
      made.ana._id,
      anaAgain._id,
    ]);
    const bobs = await as(bob, () => exports.list(everything()));
    expect([bobs.total, bobs.data.map((e) => e._id)]).toEqual([1, [made.bob._id]]);
    // The JSON list the gateway serves, and a filter, count the same records.
    expect((await as(bob, () => exports.listJson(everything()))).total).toBe(1);
    const pending = { ...everything(), filters: [{ field: 'status', op: 'eq' as const, values: ['pending'] }] };
    expect((await as(ana, () => exports.list(pending))).total).toBe(2);
    for (const actor of [carla, admin, null]) expect((await as(actor, () => exports.list(everything()))).total).toBe(6);

    const ids = Object.values(made).map((e) => e._id);
    expect((await as(ana, () => exports.batchGet(ids, []))).map((e) => e._id)).toEqual([made.ana._id]);
    expect(await as(carla, () => exports.batchGet(ids, []))).toHaveLength(5);

    expect(await as(ana, () => exports.get(made.ana._id))).toMatchObject({ _id: made.ana._id });
    // Another user's, an unrestricted caller's and one made with no caller at all: as for no export.
    for (const other of [made.bob, made.carla, made.admin, made.none])
      await expectNoSuch(
        'export',
        other._id,
        as(ana, () => exports.get(other._id)),
      );
    const unknown = newId();
    await expectNoSuch(
      'export',
      unknown,
      as(ana, () => exports.get(unknown)),
    );
    expect(await as(carla, () => exports.get(made.bob._id))).toMatchObject({ _id: made.bob._id });
  });

  it('refuses every call by id on another user’s export as for no export, and leaves it as it was', async () => {
    const bobs = await as(bob, () => exports.create({ file_type: 'csv', file_name: 'bobs.csv' }));
    const done = { status: 'completed', expires_at: new Date(Date.now() + 60_000) } as Partial<ExportEntity>;
    await storage.put(bobs.file_key, Readable.from([Buffer.from('code\r\nB\r\n')]), { maxBytes: 1_000 });
    await exports.mutate(bobs._id, undefined, (r) => void Object.assign(r, done));
    const before = await exportRow(bobs._id);

    await expectNoSuch(
      'export',
      bobs._id,
      as(ana, () => exportMoves.download(bobs._id)),
    );
    await expectNoSuch(
      'export',
      bobs._id,
      as(ana, () => exports.remove(bobs._id)),
    );
    await exports.mutate(bobs._id, undefined, (r) => void (r.status = 'failed'));
    const failed = await exportRow(bobs._id);
    await expectNoSuch(
      'export',
      bobs._id,
      as(ana, () => exportMoves.retry(bobs._id)),
    );
    expect(await exportRow(bobs._id)).toEqual(failed);
    expect(failed).toMatchObject({ deleted: false, version: before.version + 1 });

    // Bob himself, and an unrestricted user, may: Carla retries it (it still runs as Bob) and downloads it.
    expect(await as(bob, () => exportMoves.retry(bobs._id))).toMatchObject({ status: 'pending' });
    await exports.mutate(bobs._id, undefined, (r) => void Object.assign(r, done));
    const file = await as(carla, () => exportMoves.download(bobs._id));
    file.bytes.destroy();
    expect(file.fileName).toBe('bobs.csv');
    expect((await as(bob, () => exports.get(bobs._id))).downloaded_by).toEqual([CARLA]);
    expect(await as(bob, () => exports.remove(bobs._id))).toMatchObject({ _id: bobs._id });
  });

  it('keeps an import its uploader’s, then its starter’s: others restricted get the 404 of no import for every call', async () => {
    await ds.query(`DELETE FROM imports`);
    const anas = await mappedImport(ana);
    const bobs = await mappedImport(bob);
    const unrestricted = await mappedImport(null);
    expect((await ds.query(`SELECT run_as FROM imports WHERE _id = $1`, [anas._id]))[0].run_as).toEqual(ana);

    const listed = await as(ana, () => imports.list(everything()));
    expect([listed.total, listed.data.map((i) => i._id)]).toEqual([1, [anas._id]]);
    expect((await as(carla, () => imports.list(everything()))).total).toBe(3);
    expect(
      (await as(bob, () => imports.batchGet([anas._id, bobs._id, unrestricted._id], []))).map((i) => i._id),
    ).toEqual([bobs._id]);

    // Reads (the error file and the progress stream read it the same way), changes and moves.
    const before = await importRow(bobs._id);
    for (const call of [
      () => imports.get(bobs._id),
      () => imports.patch(bobs._id, { mapped_headers: { A: 'code' } }),
      () => importMoves.start(bobs._id),
      () => importMoves.cancel(bobs._id),
      () => imports.remove(bobs._id),
    ])
      await expectNoSuch('import', bobs._id, as(ana, call));
    expect(await importRow(bobs._id)).toEqual(before);
    await expectNoSuch(
      'import',
      unrestricted._id,
      as(ana, () => imports.get(unrestricted._id)),
    );

    // Ana starts her own; an unrestricted user starts Bob's, which then runs as (and belongs to) her.
    expect(await as(ana, () => importMoves.start(anas._id))).toMatchObject({ status: 'queued' });
    expect(await as(carla, () => importMoves.start(bobs._id))).toMatchObject({ status: 'queued' });
    await expectNoSuch(
      'import',
      bobs._id,
      as(bob, () => imports.get(bobs._id)),
    );
    expect(await as(carla, () => imports.get(bobs._id))).toMatchObject({ status: 'queued' });
    expect(await as(ana, () => importMoves.cancel(anas._id))).toMatchObject({ status: 'canceled' });
    expect(await as(ana, () => imports.remove(anas._id))).toMatchObject({ _id: anas._id });
  });
});
