import type { DataSource } from 'typeorm';
import { ConflictError, NotFoundError, PreconditionFailedError, ValidationError } from '@pim/errors';
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

  it('creates, reads, patches, lists and deletes, with versions, a unique name, a checked mapping and one event per write', async () => {
    const mapping = { SKU: 'code', Nome: 'name.pt', Cor: 'attributes.color' };
    const created = await s.create({ name: 'Supplier A', mapped_headers: mapping });
    expect(created).toMatchObject({ name: 'Supplier A', enabled: true, mapped_headers: mapping, version: 1 });
    await expect(s.create({ name: 'Supplier A', mapped_headers: mapping })).rejects.toBeInstanceOf(ConflictError);
    // A mapping without code, with a field twice or to what an import cannot fill is refused, naming each.
    const bad = await s.create({ name: 'B', mapped_headers: { Nome: 'name.pt', Name: 'name.pt', X: 'colour' } }).then(
      () => undefined,
      (err: ValidationError) => err,
    );
    expect(bad).toBeInstanceOf(ValidationError);
    expect(bad!.message).toMatch(/is not a product field an import can fill/);
    expect(bad!.message).toMatch(/must map one header to code/);
    expect(bad!.message).toMatch(/must map each product field from one header only/);
    const patched = await s.patch(created._id, { enabled: false, mapped_headers: { SKU: 'code' } }, 1);
    expect(patched).toMatchObject({ enabled: false, mapped_headers: { SKU: 'code' }, version: 2 });
    await expect(s.patch(created._id, { enabled: true }, 1)).rejects.toBeInstanceOf(PreconditionFailedError);
    const found = await s.list({ page: 1, limit: 10, skip: 0, sort: [], filters: [], search: 'supplier', expand: [] });
    expect(found.data.map((v) => v._id)).toEqual([created._id]);
    await s.remove(created._id, 2);
    await expect(s.get(created._id)).rejects.toBeInstanceOf(NotFoundError);
    // The name is free again once the template is deleted.
    expect((await s.create({ name: 'Supplier A', mapped_headers: mapping })).version).toBe(1);
    const events: { type: string }[] = await ds.query(
      `SELECT envelope->>'type' AS type FROM outbox ORDER BY occurred_at, id`,
    );
    expect(events.map((e) => e.type)).toEqual([
      'import_templates.created',
      'import_templates.updated',
      'import_templates.deleted',
      'import_templates.created',
    ]);
  });
});
