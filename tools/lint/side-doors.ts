// One code path for versions and events: a record's version is bumped and its outbox event written
// by the record engine (libs/records, through libs/events), never by an app's own code. This check
// reads every source file of every app (tests, test helpers and migrations aside) for an outbox
// write (recordEvent/recordEvents, SQL into the outbox) or a version bumped by hand (`"version" + 1`
// in SQL, `.version += 1`, `version = x.version + 1`), and fails naming each. `npm run lint` runs it.
//
// The writers that still go around the engine are listed in KNOWN_SIDE_DOORS, each with what moves
// it onto the engine: the list only shrinks. A listed file that no longer writes around the engine
// fails the check too, so it is taken off the list when it moves.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/** One write around the engine: the file (relative to apps/), its line and what it does. */
export interface SideDoor {
  file: string;
  line: number;
  what: string;
}

const RULES: { what: string; re: RegExp }[] = [
  { what: 'writes outbox events itself (recordEvent/recordEvents)', re: /\brecordEvents?\s*\(/ },
  { what: 'writes into the outbox table in SQL', re: /INSERT\s+INTO\s+[\w".]*outbox\b/i },
  { what: 'bumps a version in SQL', re: /"version"\s*=\s*[\w".]*"?version"?\s*\+/ },
  { what: 'bumps a version in SQL', re: /version:\s*\(\)\s*=>\s*['"`][^'"`]*version"?\s*\+\s*1/ },
  { what: 'bumps a version by hand', re: /\.version\s*(\+=\s*1|\+\+)/ },
  { what: 'bumps a version by hand', re: /\bversion\s*=\s*[\w.]+\.version\s*\+\s*1/ },
];

/**
 * Files that still write around the engine, and what takes each onto it. Shrinks only: moving a
 * writer onto `writeMany` / `mutate` takes it off.
 */
export const KNOWN_SIDE_DOORS: Record<string, string> = {
  'catalog/src/product/product.bulk.ts': 'products bulk: its COPY path moves onto writeMany',
  'catalog/src/repositories/categories.repository.ts':
    "a moved category's descendants in one UPDATE (its afterWrite): mutateMany over the subtree",
};

const isSkipped = (path: string) =>
  /\.spec\.ts$/.test(path) || path.split(sep).includes('testing') || path.split(sep).includes('migrations');

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return files(path);
    return path.endsWith('.ts') && !isSkipped(path) ? [path] : [];
  });
}

/** Every write around the engine in the apps under `appsDir`, file by file and line by line. */
export function sideDoors(appsDir: string): SideDoor[] {
  return readdirSync(appsDir)
    .filter((app) => existsSync(join(appsDir, app, 'src')))
    .flatMap((app) => files(join(appsDir, app, 'src')))
    .flatMap((path) =>
      readFileSync(path, 'utf8')
        .split('\n')
        .flatMap((text, i) =>
          RULES.filter((r) => r.re.test(text)).map((r) => ({
            file: relative(appsDir, path).split(sep).join('/'),
            line: i + 1,
            what: r.what,
          })),
        ),
    );
}

/** What the check says: side doors not on the known list, and listed files that no longer have one. */
export function judge(found: SideDoor[], known: Record<string, string>): { unknown: SideDoor[]; closed: string[] } {
  const files = new Set(found.map((d) => d.file));
  return {
    unknown: found.filter((d) => known[d.file] === undefined),
    closed: Object.keys(known).filter((f) => !files.has(f)),
  };
}

if (require.main === module) {
  const { unknown, closed } = judge(sideDoors(join(__dirname, '..', '..', 'apps')), KNOWN_SIDE_DOORS);
  if (unknown.length === 0 && closed.length === 0) {
    console.log(
      `side doors: versions and events are written by the record engine (${Object.keys(KNOWN_SIDE_DOORS).length} known writers still to move onto it)`,
    );
  } else {
    if (unknown.length > 0)
      console.error(
        `Code in apps/ writes versions or outbox events itself. Write through the record engine instead: RecordService.mutate (one record; { event, before } for events of the collection's own), writeMany (a batch); see docs/platform/kit.md.\n\n${unknown
          .map((d) => `apps/${d.file}:${d.line}: ${d.what}`)
          .join('\n')}`,
      );
    if (closed.length > 0)
      console.error(
        `\nThese files no longer write around the engine: take them off KNOWN_SIDE_DOORS in tools/lint/side-doors.ts.\n${closed.map((f) => `apps/${f}`).join('\n')}`,
      );
    process.exit(1);
  }
}
