// How the launcher runs the TypeScript programs it starts (apps, their migrations, the embedded
// Postgres helper, the demo loader): from the build (`npm run build`: JavaScript in dist/, what
// `npm start` runs, see npm-start.mjs) or from source through @swc-node/register (tests, tools,
// `npm start -- --source`). Both run the same code; the build starts faster and holds less memory.
import { existsSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';

/** `build`: the compiled JavaScript of a build folder; `source`: the .ts files through swc-node. */
export type Runtime = 'build' | 'source';

/** Where a program runs from: the runtime and, for `build`, the build folder. */
export interface RunFrom {
  runtime: Runtime;
  buildDir: string;
}

/** The nearest folder at or above `dir` that holds package-lock.json: the repository's root. */
export function findRoot(dir: string): string {
  for (let d = dir; ; d = dirname(d)) {
    if (existsSync(join(d, 'package-lock.json'))) return d;
    if (dirname(d) === d) throw new Error(`no package-lock.json above ${dir}`);
  }
}

/** Repository root, whether this file runs from source (tools/start) or from a build (<build>/tools/start). */
export const ROOT = findRoot(__dirname);

/** The build `npm run build` writes and `npm start` runs. */
export const BUILD_DIR = join(ROOT, 'dist');

/** How this very launcher runs: compiled (…/tools/start/runtime.js in a build) or from source. */
export const OWN: RunFrom = __filename.endsWith('.js')
  ? { runtime: 'build', buildDir: join(__dirname, '..', '..') }
  : { runtime: 'source', buildDir: BUILD_DIR };

/**
 * V8's young generation of every program run from the build: semi-spaces of at most 4 MB instead
 * of up to 32 MB each, which an app fills once while it starts and then keeps resident (~40–60 MB
 * of its idle RSS). The price is more scavenges under load: ~10–20 % more CPU in a bulk-write
 * workload, against ~20–40 % with 2 MB for a few MB less (docs/decisions/platform.md). A flag that
 * NODE_OPTIONS sets too is left to NODE_OPTIONS (`NODE_OPTIONS=--max-semi-space-size=32 npm start`).
 */
export const BUILD_V8_FLAGS = ['--max-semi-space-size=4'];

/** The file a runtime runs for a program's .ts source: the source itself, or its .js in the build. */
export function runnable(source: string, from: RunFrom): string {
  if (from.runtime === 'source') return source;
  const rel = relative(ROOT, source);
  if (rel.startsWith('..') || isAbsolute(rel)) throw new Error(`${source} is outside ${ROOT}: no build holds it`);
  return join(from.buildDir, rel.replace(/\.ts$/, '.js'));
}

/** Node arguments of every child: the orphan guard (see orphan-guard.cjs). */
export function guardArgs(): string[] {
  return ['-r', join(__dirname, 'orphan-guard.cjs')];
}

/**
 * Node arguments before a program's file: the orphan guard, then swc-node's require hook (source),
 * or the build's source-map support (stack traces name the .ts lines; libs/app/src/source-maps.ts)
 * and BUILD_V8_FLAGS (build).
 */
export function nodeArgs(
  from: RunFrom = { runtime: 'source', buildDir: BUILD_DIR },
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): string[] {
  if (from.runtime === 'source') return [...guardArgs(), '-r', require.resolve('@swc-node/register')];
  const flags = BUILD_V8_FLAGS.filter((f) => !nodeOptions.includes(f.split('=')[0]));
  return [...guardArgs(), '-r', join(from.buildDir, 'libs', 'app', 'src', 'source-maps.js'), ...flags];
}
