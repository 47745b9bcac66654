// `npm start`: compiles what changed since the last build (tools/build/build.mjs, ~0.1 s when
// nothing did, ~1–2 s from scratch), then runs the launcher (main.ts) from the build, which runs
// every app from it too. `npm start -- --source` skips the build and runs the launcher and the apps
// from the TypeScript sources through @swc-node/register, as before the build existed.
import { createRequire, setSourceMapsSupport } from 'node:module';
import { join } from 'node:path';
import { ROOT, build, describe } from '../build/build.mjs';

const require = createRequire(import.meta.url);
const say = (line) => process.stdout.write(`[start] ${line}\n`);

if (process.argv.includes('--source')) {
  process.env.SWC_NODE_PROJECT ??= join(ROOT, 'tsconfig.json');
  require('@swc-node/register');
  require('./main.ts');
} else {
  const result = await build();
  if (result.errors.length > 0) {
    for (const error of result.errors) say(`error: ${error}`);
    say(`error: the build failed (${result.errors.length} file(s)); fix them, then npm start again`);
    process.exit(1);
  }
  say(describe(result));
  setSourceMapsSupport(true, { nodeModules: false, generatedCode: false });
  require(join(result.out, 'tools', 'start', 'main.js'));
}
