// `node -r @swc-node/register tools/openapi/interface-fields.ts <interface.md>`: reads the resource
// tables of the service interface (one `### <Resource>` table each, with a `Req` column) and writes
// tools/openapi/fixtures/interface-required.json: each resource's fields that the interface marks
// required. The contract test (required.spec.ts) compares the OpenAPI document with that file, so
// the interface is parsed once, here, and the file is committed.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The output, relative to this folder. */
export const FIXTURE = join(__dirname, 'fixtures', 'interface-required.json');

/** Each resource's required fields, by the resource's name as its table heading gives it. */
export function requiredFields(markdown: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  let resource: string | undefined;
  let header: string[] | undefined;
  for (const line of markdown.split('\n')) {
    const heading = /^###\s+[\d.]+\s+(.+?)\s*$/.exec(line);
    if (heading) {
      resource = heading[1];
      header = undefined;
      continue;
    }
    if (/^##\s/.test(line)) resource = undefined;
    if (resource === undefined || !line.startsWith('|')) continue;
    const cells = line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
    if (header === undefined) {
      header = cells;
      continue;
    }
    const req = header.indexOf('Req');
    if (req < 0 || /^-+$/.test(cells[0])) continue;
    // `code (unique)` names the field `code`.
    const name = cells[0].replace(/\s*\(.*\)$/, '');
    out[resource] ??= [];
    if (cells[req] === 'yes') out[resource].push(name);
  }
  return out;
}

function main(): void {
  const source = process.argv[2];
  if (!source) {
    console.error('usage: interface-fields.ts <interface.md>');
    process.exit(2);
  }
  const fields = requiredFields(readFileSync(source, 'utf8'));
  // One line per resource, as prettier writes it.
  const lines = Object.entries(fields).map(
    ([name, list]) => `  ${JSON.stringify(name)}: [${list.map((f) => JSON.stringify(f)).join(', ')}]`,
  );
  writeFileSync(FIXTURE, `{\n${lines.join(',\n')}\n}\n`);
  console.log(`wrote ${FIXTURE}: ${Object.keys(fields).length} resources`);
}

if (require.main === module) main();
