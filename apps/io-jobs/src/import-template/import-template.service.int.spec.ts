import type { DataSource } from 'typeorm';
import { ConflictError, NotFoundError, PreconditionFailedError } from '@pim/errors';
import { createDataSource, migrate } from '@pim/db';
import { RecordService } from '@pim/records';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { dataSourceOptions } from '../data-source';
import { IO_JOBS_STORE } from '../io-jobs.records';
import type { ImportTemplateInput, ImportTemplateView } from '@pim/resources';
import type { ImportTemplateEntity } from '../entities/import-template.entity';
import { importTemplateRecord } from './import-template.resource';

// Import templates on the record engine against the real Postgres: writes, reads, lists and their events.
describe('import templates (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let s: RecordService<ImportTemplateEntity, ImportTemplateView, ImportTemplateInput>;

  beforeAll(async () => {
    db = await createTestDatabase('import_templates');
    await migrate(dataSourceOptions(db.url));
    ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
    s = new RecordService(ds, importTemplateRecord, IO_JOBS_STORE);
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
      `SELECT envelope->>'type' AS type FROM outbox ORDER BY occurred_at, id`,
    );
    expect(events.map((e) => e.type)).toEqual([
      'import_templates.created',
      'import_templates.updated',
      'import_templates.deleted',
    ]);
  });
});
