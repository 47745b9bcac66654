import 'reflect-metadata';
import { createDataSource, migrate } from '@pim/db';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import type { DataSource } from 'typeorm';
import { dataSourceOptions } from '../data-source';
import { UsersGroupsNamesNfc1796200000000 } from './1796200000000-users-groups-names-nfc';

const NFC = 'Gestão'; // ã as one character
const NFD = 'Gesta\u0303o'; // a and a combining tilde: reads the same

// Users groups' names written before names were stored in NFC: rewritten in NFC, except where that
// would give a live group the name of another one, which is reported and left for a person to rename.
describe('migration: users groups names in NFC', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let n = 0;

  const insert = (name: string, deleted = false) => {
    const id = (++n).toString(16).padStart(24, '0');
    return ds
      .query(
        `INSERT INTO users_groups (_id, created_at, updated_at, search_text, source_id, name, users, deleted)
         VALUES ($1, now(), now(), $2, 'sso', $2, '[]', $3)`,
        [id, name, deleted],
      )
      .then(() => id);
  };
  const nameOf = async (id: string) =>
    ((await ds.query(`SELECT name, search_text FROM users_groups WHERE _id = $1`, [id])) as { name: string }[])[0];
  const runMigration = async () => {
    const q = ds.createQueryRunner();
    try {
      await new UsersGroupsNamesNfc1796200000000().up(q);
    } finally {
      await q.release();
    }
  };

  beforeAll(async () => {
    db = await createTestDatabase('workflownfc');
    await migrate(dataSourceOptions(db.url));
    ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('rewrites decomposed names composed, and reports (not merges) one whose NFC form another live group has', async () => {
    const lone = await insert(`Compras ${NFD}`);
    const taken = await insert(NFC);
    const clash = await insert(NFD);
    const gone = await insert(`Vendas ${NFD}`, true);
    const warn = jest.spyOn(console, 'warn').mockImplementation(() => undefined);
    try {
      await runMigration();
      expect(await nameOf(lone)).toEqual({ name: `Compras ${NFC}`, search_text: `Compras ${NFC}` });
      expect((await nameOf(taken)).name).toBe(NFC);
      // Left as it was, both groups still there, and said so once.
      expect((await nameOf(clash)).name).toBe(NFD);
      expect(warn).toHaveBeenCalledTimes(1);
      const line = JSON.parse(warn.mock.calls[0][0] as string);
      expect(line).toMatchObject({ level: 'warn', clashes: [{ _id: clash, name: NFC, taken_by: taken }] });
      expect(line.msg).toContain('rename one of the two');
      // A deleted group is history: its name stays as it was written.
      expect((await nameOf(gone)).name).toBe(`Vendas ${NFD}`);

      // Once the clash is resolved by hand, running it again finishes the job, quietly.
      await ds.query(`UPDATE users_groups SET name = $2 WHERE _id = $1`, [clash, `${NFD} 2`]);
      warn.mockClear();
      await runMigration();
      expect((await nameOf(clash)).name).toBe(`${NFC} 2`);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });
});
