// `npm run openapi:generate`: writes the gateway's OpenAPI document to libs/api-client/openapi.json
// (built from the route declarations, without starting a server or a database) and generates the
// client's types from it with openapi-typescript into libs/api-client/src/schema.ts.
// With --check (`npm run openapi:check`), generates into a temporary folder and fails when either
// checked-in file differs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { buildApiDocument } from '../../apps/gateway/src/app';

const root = resolve(__dirname, '..', '..');
const lib = join(root, 'libs/api-client');

/** The generated files, relative to the repository root. */
export const OUTPUTS = { document: 'libs/api-client/openapi.json', schema: 'libs/api-client/src/schema.ts' };

/** The CLI of openapi-typescript (an ES module, so it runs in its own process). */
function openapiTypescriptCli(): string {
  const pkgPath = require.resolve('openapi-typescript/package.json', { paths: [root] });
  const pkg = JSON.parse(readFileSync(pkgPath, 'utf8')) as { bin: Record<string, string> };
  return join(dirname(pkgPath), pkg.bin['openapi-typescript']);
}

/** The document as written to disk: the server is the relative `/`, so the file is the same everywhere. */
export function documentText(): string {
  return `${JSON.stringify(buildApiDocument(), null, 2)}\n`;
}

/** Generates both files into `dir` (same layout as the repository) and returns their texts. */
export function generate(dir: string): Record<keyof typeof OUTPUTS, string> {
  const documentPath = join(dir, OUTPUTS.document);
  const schemaPath = join(dir, OUTPUTS.schema);
  mkdirSync(dirname(documentPath), { recursive: true });
  mkdirSync(dirname(schemaPath), { recursive: true });
  writeFileSync(documentPath, documentText());
  execFileSync(process.execPath, [openapiTypescriptCli(), documentPath, '--output', schemaPath], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  return { document: readFileSync(documentPath, 'utf8'), schema: readFileSync(schemaPath, 'utf8') };
}

function main(): void {
  const check = process.argv.includes('--check');
  const tmp = mkdtempSync(join(tmpdir(), 'pim-openapi-'));
  try {
    const fresh = generate(check ? tmp : root);
    if (!check) {
      console.log(`generated ${OUTPUTS.document} and ${OUTPUTS.schema}`);
      return;
    }
    const stale = (Object.keys(OUTPUTS) as (keyof typeof OUTPUTS)[]).filter((k) => {
      const path = join(root, OUTPUTS[k]);
      return !existsSync(path) || readFileSync(path, 'utf8') !== fresh[k];
    });
    if (stale.length > 0) {
      console.error(
        `The OpenAPI document or the client generated from it is not up to date: ${stale.map((k) => OUTPUTS[k]).join(', ')}.\nRun "npm run openapi:generate" and commit the result.`,
      );
      process.exit(1);
    }
    console.log(`${relative(root, lib)}: OpenAPI document and client types are up to date`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

if (require.main === module) main();
