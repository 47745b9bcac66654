// The other wall inside an app: every query over one of its tables sits in one file, the table's
// repository. This check reads each app's tables (from its entities and migrations), then every
// source file (tests, test helpers and migrations aside) for SQL naming a table (FROM, JOIN,
// INTO, UPDATE, TABLE) or an entity-manager call on its entity (find, count, update, query
// builders…), and fails naming each table that more than one file queries. `npm run lint` runs it.
// The record engine (libs/records) is not an app file: it queries every declared table alike.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** A table that more than one file of its app queries. */
export interface SharedTable {
  app: string;
  table: string;
  files: string[];
}

const isTest = (path: string) => /\.spec\.ts$/.test(path) || path.split(sep).includes('testing');

function files(dir: string, keep: (path: string) => boolean): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path, keep);
    return path.endsWith('.ts') && keep(path) ? [path] : [];
  });
}

const TABLE_NAMES = [
  /@Entity\(\{\s*name:\s*'(\w+)'/g, // an entity's table
  /TaxonomyTable\('(\w+)'\)/g, // the catalog's shared table decorator
  /CREATE TABLE (?:IF NOT EXISTS )?"(\w+)"/g, // a migration's table
];
const ENTITY_CLASS = /@\w+\([^)]*'(\w+)'[^)]*\)\)?\s*(?:@[^\n]*\n\s*)*export class (\w+)/g;
const SQL_TABLE = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+"?(\w+)"?/g;
const MANAGER_CALL =
  /\.(?:find\w*|count\w*|exists\w*|createQueryBuilder|update|insert|delete|upsert|save|remove|increment|decrement|getRepository)\(\s*(\w+)\b/g;

/** The tables of one app's src/ folder, and the table of each entity class. */
function tablesOf(src: string): { tables: Set<string>; entities: Map<string, string> } {
  const tables = new Set<string>();
  const entities = new Map<string, string>();
  for (const file of files(src, () => true)) {
    const text = readFileSync(file, 'utf8');
    for (const re of TABLE_NAMES) for (const m of text.matchAll(re)) tables.add(m[1]);
    for (const m of text.matchAll(ENTITY_CLASS)) if (tables.has(m[1])) entities.set(m[2], m[1]);
  }
  tables.delete('typeorm_metadata');
  return { tables, entities };
}

/** Which files of an app (relative to its src/) query each of its tables. */
export function tableUsers(src: string): Map<string, Set<string>> {
  const { tables, entities } = tablesOf(src);
  const users = new Map<string, Set<string>>();
  const use = (table: string, file: string) => {
    if (!users.has(table)) users.set(table, new Set());
    users.get(table)!.add(relative(src, file));
  };
  const source = files(src, (p) => !isTest(p) && !p.split(sep).includes('migrations'));
  for (const file of source) {
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(SQL_TABLE)) if (tables.has(m[1])) use(m[1], file);
    for (const m of text.matchAll(MANAGER_CALL)) {
      const table = entities.get(m[1]);
      if (table !== undefined) use(table, file);
    }
  }
  return users;
}

/** The tables of every app under `appsDir` that more than one file queries. */
export function sharedTables(appsDir: string): SharedTable[] {
  return readdirSync(appsDir)
    .filter((app) => existsSync(join(appsDir, app, 'src')))
    .flatMap((app) =>
      [...tableUsers(join(appsDir, app, 'src'))]
        .filter(([, users]) => users.size > 1)
        .map(([table, users]) => ({ app, table, files: [...users].sort() })),
    );
}

if (require.main === module) {
  const shared = sharedTables(join(__dirname, '..', '..', 'apps'));
  if (shared.length === 0) {
    console.log('table owners: every table is queried from one file of its app (its repository)');
  } else {
    console.error(
      `A table is queried from more than one file. Move every query over it into its repository (one file per table, e.g. repositories/<table>.repository.ts) and call that; see docs/platform/walls.md.\n\n${shared
        .map((s) => `apps/${s.app}/src: "${s.table}" is queried in ${s.files.join(', ')}`)
        .join('\n')}`,
    );
    process.exit(1);
  }
}
