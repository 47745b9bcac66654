import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { DataSource } from 'typeorm';
import { ConflictError, GoneError, ValidationError } from '@pim/errors';
import { createDataSource, migrate } from '@pim/db';
import { createLogger, runWithContext } from '@pim/logging';
import { RecordService } from '@pim/records';
import type { ExportInput, ExportView } from '@pim/resources';
import { LocalFileStorage } from '@pim/storage';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { SCHEMA, dataSourceOptions } from '../data-source';
import type { ExportEntity } from '../entities/export.entity';
import { IO_JOBS_STORE } from '../io-jobs.records';
import { JobQueue, type QueueSpec } from '../jobs/job.queue';
import { catalogLink } from '../links/catalog.link';
import { ExportMoves } from './export.moves';
import { exportRecord } from './export.resource';
import { exportSweeper } from './export.sweeper';

const logger = createLogger({ service: 'exports-test', level: 'silent' });
const USER = '6740a1b2c3d4e5f601234567';

// Exports' records, moves and retention against the real Postgres and pg-boss: creation queues a
// job in the same transaction, retry and download follow the states, files expire. (Writing the
// file from a running catalog is in test/e2e/exports.e2e.spec.ts.)
describe('exports (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let dir: string;
  let storage: LocalFileStorage;
  let queue: JobQueue;
  let exports: RecordService<ExportEntity, ExportView, ExportInput>;
  let moves: ExportMoves;
  const spec: QueueSpec = { name: 'exports', attempts: 2 };
  // Creation without headers or attr_control asks the catalog nothing: no catalog needs to run.
  const catalog = catalogLink('127.0.0.1:1');

  const jobs = async () =>
    Number((await ds.query(`SELECT count(*) AS n FROM "${SCHEMA}".job WHERE name = 'exports'`))[0].n);
  /** Moves an export as its worker would, straight in the table. */
  const set = (id: string, change: Partial<ExportEntity>) =>
    exports.mutate(id, undefined, (r) => void Object.assign(r, change));

  beforeAll(async () => {
    db = await createTestDatabase('exports');
    await migrate(dataSourceOptions(db.url));
    ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
    dir = await mkdtemp(join(tmpdir(), 'pim-exports-'));
    storage = new LocalFileStorage(dir);
    queue = new JobQueue({ url: db.url, schema: SCHEMA, heartbeatSeconds: 10, superviseSeconds: 60, logger });
    await queue.start([spec]);
    exports = new RecordService(ds, exportRecord({ queue, spec, catalog }), IO_JOBS_STORE);
    moves = new ExportMoves(exports, queue, spec, storage);
  });

  afterAll(async () => {
    catalog.close();
    await queue?.stop(1_000);
    await ds?.destroy();
    await db?.drop();
    await rm(dir, { recursive: true, force: true });
  });

  it('creates an export pending, with its file key, name and zero counts, its job queued in the same transaction', async () => {
    const before = await jobs();
    const created = await exports.create({ file_type: 'xlsx', filters: { enabled: true } });
    expect(created).toMatchObject({
      status: 'pending',
      report_type: 'general',
      file_type: 'xlsx',
      filters: { enabled: true },
      headers: [],
      products: [],
      downloaded_by: [],
      metadata: { total_products: 0, total_field_failed: 0, total_item_failed: 0 },
      rows_count: 0,
    });
    expect(created.file_key).toMatch(new RegExp(`^exports/\\d{4}-\\d{2}/${created._id}\\.xlsx$`));
    expect(created.file_name).toMatch(/^products-general-\d{4}-\d{2}-\d{2}\.xlsx$/);
    expect(await jobs()).toBe(before + 1);
    const named = await exports.create({ file_type: 'csv', file_name: 'shirts', report_type: 'per_attributes' });
    expect(named.file_name).toBe('shirts.csv');
    const events: { type: string }[] = await ds.query(
      `SELECT envelope->>'type' AS type FROM outbox ORDER BY occurred_at, id`,
    );
    expect(events.map((e) => e.type)).toEqual(['exports.created', 'exports.created']);
  });

  it('refuses filters and columns it could never honour, storing nothing', async () => {
    const before = await jobs();
    await expect(exports.create({ file_type: 'pdf' } as never)).rejects.toBeInstanceOf(ValidationError);
    await expect(
      exports.create({
        file_type: 'csv',
        filters: { custom_period: ['2026-02-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'] },
      }),
    ).rejects.toThrow(/custom_period/);
    await expect(exports.create({ file_type: 'csv', filters: { colour: 'red' } } as never)).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(
      exports.create({
        file_type: 'csv',
        report_type: 'eligibility_services',
        headers: [{ label: 'Weight', value: 'weight', isAttribute: false }],
      }),
    ).rejects.toThrow(/'weight' is not a column of this report/);
    expect(await jobs()).toBe(before);
  });

  it('retries a failed export only (409 otherwise), clearing its counts and queueing it again', async () => {
    const e = await exports.create({ file_type: 'csv' });
    await expect(moves.retry(e._id)).rejects.toThrow(ConflictError);
    await expect(moves.retry(e._id)).rejects.toThrow(
      /is pending: only a failed export is retried \(from pending to pending\)/,
    );
    await set(e._id, {
      status: 'failed',
      metadata: { total_products: 5, total_field_failed: 1, total_item_failed: 0 },
    } as Partial<ExportEntity>);
    const before = await jobs();
    const retried = await moves.retry(e._id);
    expect(retried).toMatchObject({ status: 'pending', metadata: { total_products: 0 } });
    expect(retried.logs.at(-1)).toMatch(/Retried/);
    expect(await jobs()).toBe(before + 1);
    await set(e._id, { status: 'completed' } as Partial<ExportEntity>);
    await expect(moves.retry(e._id)).rejects.toThrow(/is completed/);
  });

  it('downloads a completed file and records each user once; 409 before it is written, 410 once expired', async () => {
    const e = await exports.create({ file_type: 'csv', file_name: 'all.csv' });
    await expect(moves.download(e._id)).rejects.toThrow(ConflictError);
    await storage.put(e.file_key, Readable.from([Buffer.from('code\r\nA\r\n')]), { maxBytes: 1_000 });
    await set(e._id, { status: 'completed', expires_at: new Date(Date.now() + 60_000) } as Partial<ExportEntity>);
    const read = async () => {
      const file = await runWithContext({ requestId: 'r', actor: { user_id: USER, user_name: 'Ana' } }, () =>
        moves.download(e._id),
      );
      const chunks: Buffer[] = [];
      for await (const c of file.bytes) chunks.push(c as Buffer);
      return { ...file, text: Buffer.concat(chunks).toString('utf8') };
    };
    const first = await read();
    expect(first).toMatchObject({
      fileName: 'all.csv',
      contentType: 'text/csv; charset=utf-8',
      size: 9,
      text: 'code\r\nA\r\n',
    });
    await read();
    expect((await exports.get(e._id)).downloaded_by).toEqual([USER]);
    await set(e._id, { expires_at: new Date(Date.now() - 1_000) } as Partial<ExportEntity>);
    await expect(moves.download(e._id)).rejects.toBeInstanceOf(GoneError);
    await expect(moves.download(e._id)).rejects.toThrow(/expired on .*: its file is no longer kept/);
  });

  it('refuses to delete an export being written, and removes the files of expired and deleted exports once', async () => {
    const running = await exports.create({ file_type: 'csv' });
    await set(running._id, { status: 'in_progress' } as Partial<ExportEntity>);
    await expect(exports.remove(running._id)).rejects.toThrow(/being written is not deleted/);

    const expired = await exports.create({ file_type: 'csv' });
    const kept = await exports.create({ file_type: 'csv' });
    const deleted = await exports.create({ file_type: 'csv' });
    for (const e of [expired, kept, deleted])
      await storage.put(e.file_key, Readable.from([Buffer.from('x')]), { maxBytes: 10 });
    await set(expired._id, { status: 'completed', expires_at: new Date(Date.now() - 1) } as Partial<ExportEntity>);
    await set(kept._id, { status: 'completed', expires_at: new Date(Date.now() + 3_600_000) } as Partial<ExportEntity>);
    await exports.remove(deleted._id);

    const sweeper = exportSweeper(ds, storage, 60_000, logger);
    sweeper.start();
    await new Promise((r) => setTimeout(r, 1_500));
    await sweeper.stop();
    expect(await storage.stat(expired.file_key)).toBeUndefined();
    expect(await storage.stat(deleted.file_key)).toBeUndefined();
    expect(await storage.stat(kept.file_key)).toBeDefined();
    const removed: { _id: string }[] = await ds.query(
      `SELECT "_id" FROM exports WHERE file_removed_at IS NOT NULL ORDER BY "_id"`,
    );
    expect(removed.map((r) => r._id)).toEqual(expect.arrayContaining([expired._id, deleted._id]));
    expect(removed.map((r) => r._id)).not.toContain(kept._id);
  });
});
