import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { scratchApps } from './testing/scratch-apps';
import { appCycles, describeCycle } from './folder-cycles';

// The folder-cycle rule is part of `npm test`'s lint; this proves it refuses a deliberate cycle
// (and lets one-way imports and tests through).
const root = join(__dirname, '..', '..');

describe('folder cycles', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

  it('finds a deliberate cycle between two folders of an app and names an import for each step', () => {
    const apps = scratchApps({
      'demo/src/order/order.service.ts':
        "import { customerName } from '../customer/customer.rules';\nexport const o = customerName;\n",
      'demo/src/customer/customer.rules.ts':
        "import { OrderEntity } from '../order/order.entity';\nexport const customerName = OrderEntity;\n",
      'demo/src/order/order.entity.ts': 'export class OrderEntity {}\n',
    });
    dirs.push(apps);
    const cycles = appCycles(apps);
    expect(cycles).toHaveLength(1);
    expect(cycles[0].nodes).toEqual(['customer/', 'order/']);
    const text = describeCycle(cycles[0]);
    expect(text).toContain('apps/demo/src: customer/ → order/ → customer/');
    expect(text).toContain("customer/customer.rules.ts imports '../order/order.entity'");
    expect(text).toContain("order/order.service.ts imports '../customer/customer.rules'");
  });

  it('lets one-way imports, root wiring files and tests through', () => {
    const apps = scratchApps({
      'demo/src/main.ts': "import { o } from './order/order.service';\nexport const m = o;\n",
      'demo/src/order/order.service.ts': "import { c } from '../customer/customer.rules';\nexport const o = c;\n",
      'demo/src/customer/customer.rules.ts': "import { s } from '../shared.rules';\nexport const c = s;\n",
      'demo/src/shared.rules.ts': 'export const s = 1;\n',
      'demo/src/customer/customer.int.spec.ts': "import { o } from '../order/order.service';\nexport const t = o;\n",
      'demo/src/testing/demo.context.ts': "import { o } from '../order/order.service';\nexport const t = o;\n",
    });
    dirs.push(apps);
    expect(appCycles(apps)).toEqual([]);
  });

  it('runs in npm run lint and passes on this repository', () => {
    const r = spawnSync(process.execPath, ['-r', '@swc-node/register', 'tools/lint/folder-cycles.ts'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('folder cycles: none');
  });
});
