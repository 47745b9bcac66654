// `buf breaking` of protos/ against the main branch as it was before this change.
// Base ref: PROTO_BREAKING_AGAINST, else origin/main, else main's previous commit (HEAD~1 when on main).
import { execFileSync } from 'node:child_process';
import { resolve, join } from 'node:path';

const root = resolve(import.meta.dirname, '..', '..');
const git = (...args) =>
  execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
const tryGit = (...args) => {
  try {
    return git(...args);
  } catch {
    return '';
  }
};

function baseRef() {
  if (process.env.PROTO_BREAKING_AGAINST) return process.env.PROTO_BREAKING_AGAINST;
  const branch = tryGit('rev-parse', '--abbrev-ref', 'HEAD');
  if (branch !== 'main' && tryGit('rev-parse', '--verify', 'main')) return tryGit('merge-base', 'HEAD', 'main');
  return tryGit('rev-parse', '--verify', 'HEAD~1');
}

const ref = baseRef();
if (!ref) {
  console.log('proto:breaking: no earlier commit to compare against; nothing to check');
  process.exit(0);
}
if (!tryGit('ls-tree', '-d', ref, 'protos')) {
  console.log(`proto:breaking: ${ref.slice(0, 12)} has no protos/; nothing to compare`);
  process.exit(0);
}
try {
  execFileSync(join(root, 'node_modules/.bin/buf'), ['breaking', '--against', `.git#ref=${ref},subdir=protos`], {
    cwd: root,
    stdio: 'inherit',
  });
  console.log(`proto:breaking: no breaking change against ${ref.slice(0, 12)}`);
} catch {
  console.error(
    `proto:breaking: protos/ break compatibility with ${ref.slice(0, 12)}; add fields instead, or start a v2 package`,
  );
  process.exit(1);
}
