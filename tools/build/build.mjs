// `npm run build`: the apps, the libs and the launcher compiled by swc to CommonJS in dist/, one
// .js and one .js.map per .ts (stack traces name the .ts lines), with the compiler settings of
// .swcrc (legacy decorators and their metadata, for TypeORM); the .proto files copied beside them.
// Incremental: a file is compiled again only when its source changed since the last build (size or
// modification time), or when .swcrc or this script did; the outputs of deleted sources go.
// `@pim/<lib>` resolves inside dist/ through dist/node_modules/@pim/<lib>/package.json, which
// points at the compiled lib; everything else resolves from the repository's node_modules.
//   node tools/build/build.mjs [--root <repository>] [--out <folder inside it>] [--clean] [--quiet | --json]
// tools/start/npm-start.mjs imports build() (`npm start` builds first); deploy/Dockerfile runs it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';

/** Repository root. */
export const ROOT = resolve(import.meta.dirname, '..', '..');

/**
 * What is built: each app's and lib's `src/`, the launcher with the demo loader it can run, and the
 * .proto files (reflection reads them at run time). A folder that is absent is skipped (the
 * image's build context holds only apps, libs and protos).
 */
const SOURCES = ['apps/*/src', 'libs/*/src', 'tools/start', 'tools/demo', 'protos'];

/** Never built: tests, their helpers and fixtures (none of them ship). */
const SKIP = [/\.spec\.ts$/, /\.d\.ts$/, /(^|\/)testing(\/|$)/, /(^|\/)fixtures(\/|$)/];

/** Copied as they are: the launcher's plain CommonJS helpers (orphan-guard.cjs…) and the protos. */
const COPIED = /\.(cjs|proto)$/;

/**
 * Lib indexes whose re-exports load on first use in the build (swc's lazy CommonJS requires): the
 * generated contracts and the declared resources, which every app imports and of which each uses
 * its own share (the services it serves and calls, its resources): ~10–15 MB less in the webhooks
 * app. Their modules have no side effects another relies on; the gateway, which uses them all,
 * serves the same OpenAPI document. Same exports; only when each module is required changes.
 */
const LAZY_REEXPORTS = ['libs/contracts/src/index.ts', 'libs/resources/src/index.ts'];

/** The record of the last build, in the output folder: each source's size and time, and the settings' hash. */
const MANIFEST = '.build.json';

/** Folders a SOURCES pattern names under `root` (one `*` segment at most), relative to it. */
function expand(root, pattern) {
  const [before, after] = pattern.split('/*/');
  if (after === undefined) return existsSync(join(root, pattern)) ? [pattern] : [];
  if (!existsSync(join(root, before))) return [];
  return readdirSync(join(root, before), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(root, before, d.name, after)))
    .map((d) => `${before}/${d.name}/${after}`);
}

/** Every file under a folder, relative to the root, `/`-separated. */
function walk(root, dir) {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((d) => {
    const path = `${dir}/${d.name}`;
    if (d.isDirectory()) return d.name === 'node_modules' ? [] : walk(root, path);
    return d.isFile() ? [path] : [];
  });
}

/** The sources of a build: files to compile (.ts) and to copy, relative to the root. */
export function sources(root = ROOT) {
  return SOURCES.flatMap((pattern) => expand(root, pattern))
    .flatMap((dir) => walk(root, dir))
    .filter((f) => (f.endsWith('.ts') || COPIED.test(f)) && !SKIP.some((re) => re.test(f)))
    .sort();
}

/** The workspaces whose code is built (apps/*, libs/*): name, folder and package.json. */
function workspaces(root) {
  return ['apps', 'libs'].flatMap((group) =>
    expand(root, `${group}/*/src`).map((src) => {
      const dir = dirname(src);
      const pkg = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
      return { name: pkg.name, dir, pkg };
    }),
  );
}

/** The swc options of .swcrc, with source maps as files beside the output. */
function swcOptions(root) {
  const swcrc = JSON.parse(readFileSync(join(root, '.swcrc'), 'utf8'));
  delete swcrc.$schema;
  return { ...swcrc, swcrc: false, configFile: false, sourceMaps: true, inlineSourcesContent: false };
}

/** Hash of what decides every output besides its own source: the settings and this script. */
function settingsHash(options) {
  return createHash('sha256')
    .update(JSON.stringify(options))
    .update(readFileSync(import.meta.filename))
    .digest('hex')
    .slice(0, 16);
}

/** Writes a file through a temporary name, so a reader (or a second build) never sees half of it. */
function writeAtomic(file, data) {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, data);
  renameSync(tmp, file);
}

function writeIfChanged(file, text) {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return;
  writeAtomic(file, text);
}

function json(value) {
  return `${JSON.stringify(value, null, 2)}\n`;
}

function readManifest(out) {
  try {
    return JSON.parse(readFileSync(join(out, MANIFEST), 'utf8'));
  } catch {
    return { settings: '', files: {} };
  }
}

/** The output files of one source. */
function outputsOf(file) {
  return COPIED.test(file) ? [file] : [file.replace(/\.ts$/, '.js'), file.replace(/\.ts$/, '.js.map')];
}

/**
 * `export * as x from 'y'` as the equivalent `import * as x from 'y'; export { x };` (on one line:
 * the source map's lines stay), and the specifiers, for swc's lazy CommonJS requires (which it
 * applies to imports, not to `export * as`).
 */
export function lazyReexports(code) {
  const rewritten = code.replace(
    /^export \* as (\w+) from '([^']+)';$/gm,
    (_, name, from) => `import * as ${name} from '${from}'; export { ${name} };`,
  );
  const specifiers = [...new Set([...rewritten.matchAll(/ from '(\.[^']+)';/g)].map((m) => m[1]))];
  return { code: rewritten, specifiers };
}

/** Compiles one .ts file to `<out>/<same path>.js` with its source map (sources relative to the map). */
async function compile(swc, options, root, file, out) {
  const js = join(out, file.replace(/\.ts$/, '.js'));
  const fileOptions = {
    ...options,
    filename: join(root, file),
    sourceFileName: relative(dirname(js), join(root, file)),
  };
  let result;
  if (LAZY_REEXPORTS.includes(file)) {
    const { code, specifiers } = lazyReexports(readFileSync(join(root, file), 'utf8'));
    result = await swc.transform(code, { ...fileOptions, module: { ...options.module, lazy: specifiers } });
  } else result = await swc.transformFile(join(root, file), fileOptions);
  writeAtomic(`${js}.map`, result.map);
  writeAtomic(js, `${result.code}\n//# sourceMappingURL=${basename(js)}.map\n`);
}

/** Runs `fn` over `items` with at most `limit` at once. */
async function eachLimit(items, limit, fn) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await fn(items[next++]);
    }),
  );
}

/**
 * Builds the repository at `root` into `out` (default <root>/dist; it must be inside the root so
 * that third-party packages resolve from the root's node_modules) and returns what it did:
 * files in the build, compiled or copied now, removed, errors (file: message) and time.
 */
export async function build({ root = ROOT, out = join(root, 'dist'), clean = false } = {}) {
  const started = performance.now();
  root = resolve(root);
  out = resolve(out);
  if (relative(root, out).startsWith('..')) throw new Error(`the output folder must be inside ${root}: ${out}`);
  if (clean) rmSync(out, { recursive: true, force: true });
  const swc = createRequire(import.meta.url)('@swc/core');
  const options = swcOptions(root);
  const settings = settingsHash(options);
  const before = readManifest(out);
  const files = {};
  const changed = [];
  for (const file of sources(root)) {
    const { size, mtimeMs } = statSync(join(root, file));
    files[file] = [size, mtimeMs];
    const was = before.files[file];
    const fresh = before.settings === settings && was?.[0] === size && was?.[1] === mtimeMs;
    if (!fresh || !outputsOf(file).every((o) => existsSync(join(out, o)))) changed.push(file);
  }
  const errors = [];
  await eachLimit(changed, 8, async (file) => {
    try {
      if (COPIED.test(file)) writeAtomic(join(out, file), readFileSync(join(root, file)));
      else await compile(swc, options, root, file, out);
    } catch (err) {
      errors.push(`${file}: ${String(err?.message ?? err).trim()}`);
      // Not recorded: the next build tries it again.
      files[file] = [-1, -1];
    }
  });
  const removed = Object.keys(before.files).filter((f) => !(f in files));
  for (const file of removed) for (const o of outputsOf(file)) rmSync(join(out, o), { force: true });

  // Each built workspace's package.json (its version is what the apps log) with `main` on the
  // output, and for each lib the link `@pim/<lib>` resolves through from anywhere inside `out`.
  for (const { name, dir, pkg } of workspaces(root)) {
    const main = String(pkg.main ?? 'src/index.ts');
    if (!(`${dir}/${main}` in files)) continue;
    const js = main.replace(/\.ts$/, '.js');
    writeIfChanged(join(out, dir, 'package.json'), json({ ...pkg, main: js, types: undefined }));
    if (!dir.startsWith('libs/')) continue;
    const link = join(out, 'node_modules', name);
    writeIfChanged(join(link, 'package.json'), json({ name, private: true, main: relative(link, join(out, dir, js)) }));
  }
  writeAtomic(join(out, MANIFEST), json({ settings, files }));
  return {
    out,
    files: Object.keys(files).length,
    compiled: changed.length - errors.length,
    removed: removed.length,
    errors,
    ms: Math.round(performance.now() - started),
  };
}

/** One line about a build, for people. */
export function describe(result) {
  const where = relative(process.cwd(), result.out) || '.';
  const what = result.compiled === 0 ? 'nothing changed' : `${result.compiled} compiled or copied`;
  return `build: ${where}/ ${result.files} files, ${what}${result.removed ? `, ${result.removed} removed` : ''} (${result.ms} ms)`;
}

async function main() {
  const args = process.argv.slice(2);
  const option = (name) => (args.includes(name) ? resolve(args[args.indexOf(name) + 1]) : undefined);
  const root = option('--root');
  const result = await build({ root, out: option('--out'), clean: args.includes('--clean') });
  for (const error of result.errors) console.error(error);
  if (result.errors.length > 0) {
    console.error(`build: ${result.errors.length} file(s) failed`);
    process.exit(1);
  }
  if (args.includes('--json')) console.log(JSON.stringify(result));
  else if (!args.includes('--quiet')) console.log(describe(result));
}

if (process.argv[1] === import.meta.filename) await main();
