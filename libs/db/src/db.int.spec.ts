import { Column, Entity, PrimaryColumn, type MigrationInterface, type QueryRunner } from 'typeorm';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { detectDrift, migrate } from './index';

@Entity({ name: 'widgets' })
class Widget {
  @PrimaryColumn({ type: 'char', length: 24 })
  _id!: string;

  @Column({ type: 'text' })
  name!: string;
}

@Entity({ name: 'widgets' })
class WidgetWithColour {
  @PrimaryColumn({ type: 'char', length: 24 })
  _id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text', nullable: true })
  colour!: string | null;
}

class CreateWidgets1700000000000 implements MigrationInterface {
  name = 'CreateWidgets1700000000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE "widgets" ("_id" character(24) NOT NULL, "name" text NOT NULL, CONSTRAINT "PK_widgets" PRIMARY KEY ("_id"))`,
    );
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "widgets"`);
  }
}

class BrokenMigration1700000000001 implements MigrationInterface {
  name = 'BrokenMigration1700000000001';
  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE "half_done" ("x" int)`);
    await q.query(`SELECT * FROM "no_such_table"`);
  }
  async down(): Promise<void> {}
}

describe('db', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase('db');
  });
  afterAll(async () => {
    await db.drop();
  });

  async function tablesIn(schema: string): Promise<string[]> {
    const c = new Client({ connectionString: db.url });
    await c.connect();
    try {
      const r = await c.query('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1', [
        schema,
      ]);
      return r.rows.map((row) => row.table_name as string);
    } finally {
      await c.end();
    }
  }

  it('creates the schema, keeps its own migrations table and reports no drift when entities match', async () => {
    const opts = { url: db.url, schema: 'shop', entities: [Widget], migrations: [CreateWidgets1700000000000] };
    expect(await migrate(opts)).toEqual(['CreateWidgets1700000000000']);
    expect(await migrate(opts)).toEqual([]);
    expect(await tablesIn('shop')).toEqual(['migrations', 'widgets']);
    expect(await tablesIn('public')).toEqual([]);
    expect(await detectDrift(opts)).toEqual([]);
  });

  it('reports drift when an entity changes without a migration', async () => {
    const drift = await detectDrift({
      url: db.url,
      schema: 'shop',
      entities: [WidgetWithColour],
      migrations: [CreateWidgets1700000000000],
    });
    expect(drift.join('\n')).toMatch(/colour/);
  });

  it('rolls back a failing migration whole and leaves the earlier ones applied', async () => {
    const opts = {
      url: db.url,
      schema: 'other',
      entities: [Widget],
      migrations: [CreateWidgets1700000000000, BrokenMigration1700000000001],
    };
    await expect(migrate(opts)).rejects.toThrow(/no_such_table/);
    expect(await tablesIn('other')).toEqual(['migrations', 'widgets']);
  });

  it('runs the migrations of different schemas of one database one at a time (extensions are database-wide)', async () => {
    const spans: Record<string, [number, number]> = {};
    const timed = (name: string) =>
      class implements MigrationInterface {
        name = `${name}1700000000002`;
        async up(q: QueryRunner): Promise<void> {
          const start = Date.now();
          // What every app's first migration does; two at once can fail with a unique violation.
          await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public`);
          await q.query(`SELECT pg_sleep(0.3)`);
          spans[name] = [start, Date.now()];
        }
        async down(): Promise<void> {}
      };
    const opts = (schema: string) => ({ url: db.url, schema, entities: [], migrations: [timed(schema)] });
    await Promise.all([migrate(opts('first')), migrate(opts('second'))]);
    const [a, b] = [spans.first, spans.second].sort((x, y) => x[0] - y[0]);
    expect(b[0]).toBeGreaterThanOrEqual(a[1]);
  });
});
