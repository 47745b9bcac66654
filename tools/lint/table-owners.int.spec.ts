import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { scratchApps } from './testing/scratch-apps';
import { sharedTables, tableUsers } from './table-owners';

// The table-owner rule is part of `npm test`'s lint; this proves it refuses a table queried from
// two files (and lets one repository, the record engine's generic calls and tests through).
const root = join(__dirname, '..', '..');

const ENTITY = "import { Entity } from 'typeorm';\n@Entity({ name: 'orders' })\nexport class OrderEntity {}\n";
const REPOSITORY = 'export const count = (m) => m.query(`SELECT count(*) FROM "orders" WHERE deleted = false`);\n';

describe('table owners', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('finds a table queried from two files, by SQL and by an entity-manager call, and names both', () => {
    const apps = scratchApps({
      'demo/src/entities/order.entity.ts': ENTITY,
      'demo/src/repositories/orders.repository.ts': REPOSITORY,
      'demo/src/order/order.rules.ts': 'export const late = (m) => m.count(OrderEntity, { where: { late: true } });\n',
    });
    dirs.push(apps);
    expect(sharedTables(apps)).toEqual([
      {
        app: 'demo',
        table: 'orders',
        files: ['order/order.rules.ts', 'repositories/orders.repository.ts'],
      },
    ]);
  });

  it('lets one repository per table, tests, test helpers and migrations through', () => {
    const apps = scratchApps({
      'demo/src/entities/order.entity.ts': ENTITY,
      'demo/src/repositories/orders.repository.ts': REPOSITORY,
      'demo/src/order/order.service.int.spec.ts': 'const rows = (m) => m.query(`SELECT * FROM "orders"`);\n',
      'demo/src/testing/demo.context.ts': 'const reset = (m) => m.query(`TRUNCATE TABLE "orders"`);\n',
      'demo/src/migrations/1-create-orders.ts': 'const up = (q) => q.query(`CREATE TABLE "orders" (id text)`);\n',
    });
    dirs.push(apps);
    expect(sharedTables(apps)).toEqual([]);
    expect([...tableUsers(join(apps, 'demo', 'src')).get('orders')!]).toEqual(['repositories/orders.repository.ts']);
  });

  it('runs in npm run lint and passes on this repository', () => {
    const r = spawnSync(process.execPath, ['-r', '@swc-node/register', 'tools/lint/table-owners.ts'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('table owners: every table is queried from one file');
  });
});
