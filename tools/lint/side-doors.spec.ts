import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { KNOWN_SIDE_DOORS, judge, sideDoors } from './side-doors';
import { scratchApps } from './testing/scratch-apps';

// The side-door rule is part of `npm test`'s lint: versions and outbox events are written by the
// record engine only. This proves it finds a deliberate side door and lets the engine's callers,
// tests and migrations through.
describe('side doors', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('finds an outbox event written by hand and a version bumped by hand, in code and in SQL', () => {
    const apps = scratchApps({
      'demo/src/order/order.close.ts': [
        "import { recordEvent } from '@pim/events';",
        'export async function close(m, order) {',
        '  order.version += 1;',
        "  await recordEvent(m, { source: 'demo', collection: 'orders', action: 'closed', data: order });",
        '}',
      ].join('\n'),
      'demo/src/repositories/orders.repository.ts':
        'export const bump = (m, id) => m.query(`UPDATE "orders" SET "version" = "version" + 1 WHERE _id = $1`, [id]);\n' +
        'export const event = (m) => m.query(`INSERT INTO "demo"."outbox" (id) VALUES ($1)`, [1]);\n',
    });
    dirs.push(apps);
    const found = sideDoors(apps);
    expect(found).toEqual([
      { file: 'demo/src/order/order.close.ts', line: 3, what: 'bumps a version by hand' },
      {
        file: 'demo/src/order/order.close.ts',
        line: 4,
        what: 'writes outbox events itself (recordEvent/recordEvents)',
      },
      { file: 'demo/src/repositories/orders.repository.ts', line: 1, what: 'bumps a version in SQL' },
      { file: 'demo/src/repositories/orders.repository.ts', line: 2, what: 'writes into the outbox table in SQL' },
    ]);
    expect(judge(found, {}).unknown).toHaveLength(4);
  });

  it('lets writes through the engine, tests, test helpers and migrations through', () => {
    const apps = scratchApps({
      'demo/src/order/order.actions.ts':
        "export const close = (service, id) => service.mutate(id, undefined, () => ({ before: [{ action: 'closed', data: {} }] }));\n",
      'demo/src/order/order.service.int.spec.ts': 'record.version += 1;\nawait recordEvents(m, []);\n',
      'demo/src/testing/demo.context.ts': 'await recordEvent(m, e);\n',
      'demo/src/migrations/1-versions.ts': 'q.query(`UPDATE "orders" SET "version" = "version" + 1`);\n',
    });
    dirs.push(apps);
    expect(sideDoors(apps)).toEqual([]);
  });

  it('fails when a listed writer no longer goes around the engine, so the list only shrinks', () => {
    const apps = scratchApps({ 'demo/src/order/order.ts': 'export const x = 1;\n' });
    dirs.push(apps);
    expect(judge(sideDoors(apps), { 'demo/src/order/order.ts': 'moving' })).toEqual({
      unknown: [],
      closed: ['demo/src/order/order.ts'],
    });
  });

  it('holds on the apps as they are: every side door is a known one, and every known one is still there', () => {
    expect(judge(sideDoors(join(__dirname, '..', '..', 'apps')), KNOWN_SIDE_DOORS)).toEqual({
      unknown: [],
      closed: [],
    });
  });
});
