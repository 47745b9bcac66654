import 'reflect-metadata';
import { Column, Entity, PrimaryColumn } from 'typeorm';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { copyColumnsOf, copyInto, createDataSource, ensureSchema } from './index';

@Entity({ name: 'things' })
class Thing {
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', nullable: true })
  label!: string | null;

  @Column({ type: 'text', array: true })
  tags!: string[];

  @Column({ type: 'jsonb' })
  doc!: unknown;

  @Column({ type: 'timestamptz', nullable: true })
  at!: Date | null;

  @Column({ type: 'boolean' })
  flag!: boolean;

  @Column({ type: 'double precision', nullable: true })
  amount!: number | null;
}

const COLUMNS = ['id', 'label', 'tags', 'doc', 'at', 'flag', 'amount'];

// COPY FROM STDIN inside a TypeORM transaction, with every character COPY's text format treats specially.
describe('copyInto (real Postgres)', () => {
  let db: TestDatabase;
  const ds = () => createDataSource({ url: db.url, schema: 'copytest', entities: [Thing], migrations: [] });

  beforeAll(async () => {
    db = await createTestDatabase('copy');
    await ensureSchema(db.url, 'copytest');
  });

  afterAll(async () => {
    await db.drop();
  });

  it('writes rows whose texts, arrays and JSON hold tabs, newlines, backslashes, quotes, braces and NULLs, and reads them back equal', async () => {
    const source = ds();
    await source.initialize();
    try {
      await source.query(
        `CREATE TABLE things (id text PRIMARY KEY, label text, tags text[] NOT NULL, doc jsonb NOT NULL, at timestamptz, flag boolean NOT NULL, amount double precision)`,
      );
      const nasty = 'tab\there\nnew line\r\\back\\slash "quoted" {braces},comma NULL \\N é 🚀';
      const rows: Thing[] = [
        {
          id: 'a',
          label: nasty,
          tags: [nasty, '', 'NULL', 'plain'],
          doc: { s: nasty, n: 1.5, nested: [null, true, { k: '\\' }] },
          at: new Date('2026-01-02T03:04:05.678Z'),
          flag: true,
          amount: -0.25,
        },
        { id: 'b', label: null, tags: [], doc: [], at: null, flag: false, amount: null },
        { id: 'c', label: '', tags: ['x'], doc: 'just a string\twith tab', at: null, flag: false, amount: 1e21 },
      ];
      const columns = copyColumnsOf(source.getMetadata(Thing), COLUMNS);
      expect(columns.map((c) => c.kind)).toEqual(['scalar', 'scalar', 'array', 'json', 'scalar', 'scalar', 'scalar']);
      await source.transaction((m) =>
        copyInto(
          m,
          'things',
          columns,
          rows.map((r) => COLUMNS.map((c) => (r as unknown as Record<string, unknown>)[c])),
        ),
      );
      const back = await source.getRepository(Thing).find({ order: { id: 'ASC' } });
      expect(back).toEqual(rows);

      // Inside a transaction that fails afterwards, the copied rows go with it.
      await expect(
        source.transaction(async (m) => {
          await copyInto(m, 'things', columns, [['d', 'x', [], {}, null, true, null]]);
          throw new Error('after the copy');
        }),
      ).rejects.toThrow('after the copy');
      expect(await source.getRepository(Thing).count()).toBe(3);

      // A constraint violation fails the COPY with Postgres's error, and nothing of it stays.
      await expect(
        source.transaction((m) =>
          copyInto(m, 'things', columns, [
            ['e', null, [], {}, null, true, null],
            ['a', null, [], {}, null, true, null],
          ]),
        ),
      ).rejects.toMatchObject({ code: '23505' });
      expect(await source.getRepository(Thing).count()).toBe(3);
    } finally {
      await source.destroy();
    }
  });
});
