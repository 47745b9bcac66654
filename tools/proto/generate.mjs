// Generates libs/contracts/src/gen from protos/ with buf + ts-proto.
// With --check, generates into a temporary folder and fails when the checked-in code differs.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, cpSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');
const target = join(root, 'libs/contracts/src/gen');
const check = process.argv.includes('--check');
const buf = join(root, 'node_modules/.bin/buf');

function generate(into) {
  const template = readFileSync(join(root, 'buf.gen.yaml'), 'utf8').replace(
    'out: libs/contracts/src/gen',
    `out: ${into}`,
  );
  execFileSync(buf, ['generate', '--template', template], { cwd: root, stdio: 'inherit' });
}

function files(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}

const tmp = mkdtempSync(join(tmpdir(), 'pim-proto-'));
try {
  generate(tmp);
  if (!check) {
    rmSync(target, { recursive: true, force: true });
    cpSync(tmp, target, { recursive: true });
    console.log(`generated ${files(target).length} files into ${relative(root, target)}`);
  } else {
    const fresh = new Map(files(tmp).map((f) => [relative(tmp, f), readFileSync(f, 'utf8')]));
    const current = new Map(files(target).map((f) => [relative(target, f), readFileSync(f, 'utf8')]));
    const stale = [];
    for (const [name, text] of fresh) if (current.get(name) !== text) stale.push(name);
    for (const name of current.keys()) if (!fresh.has(name)) stale.push(name);
    if (stale.length > 0) {
      console.error(
        `Generated contracts are not up to date: ${stale.join(', ')}.\nRun "npm run proto:generate" and commit the result.`,
      );
      process.exit(1);
    }
    console.log(`generated contracts are up to date (${fresh.size} files)`);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
