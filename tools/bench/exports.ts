// `npm run bench -- exports`: the exports benchmark, written to the "## Exports" section of
// docs/benchmarks.md. The whole platform on a fresh database and stream; every export goes through
// the gateway (POST /exports, polling, download), io-jobs (the pg-boss worker, the report's cells,
// @pim/sheets's writer into file storage) and the catalog's ScanProducts stream, as a user drives it.
//   Catalog: N products of one family, ~30 typed attribute values each (14 types, two attributes
//   per type, textareas localizable); a base set stored through POST /products/bulk, the rest
//   cloned from it by SQL (fresh ids, codes, names), as the catalog benchmark loads its million.
//   1. XLSX, default columns (no `headers`; should that export fail, as it does at 1,000,000 when the
//      catalog's description outlasts io-jobs's 10 s deadline, the same columns named by `headers`):
//      export rows/s ÷ a raw exceljs streaming WorkbookWriter write of the same rows (the exported
//      file's cells, read back) in the bench process.
//   2. CSV, the same columns named by `headers`: export rows/s ÷ a pg `COPY (SELECT <the same
//      columns as text> FROM catalog.products …) TO STDOUT` streamed to a file, in the same run.
//   3. Peak RSS (VmHWM) of io-jobs and of the catalog during each export; then io-jobs's side
//      replayed in the bench process on the first 50,000 products (scan, cells, each writer).
// Flags: --quick (50,000 products), --no-million (200,000 instead of 1,000,000), --no-write (print
// only); BENCH_EXPORT_PRODUCTS=<n> sets the size outright.
import { once } from 'node:events';
import {
  createReadStream,
  createWriteStream,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import { Client } from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import { jetstreamManager } from '@nats-io/jetstream';
import { products as ppb } from '@pim/contracts';
import { createRpcClient } from '@pim/rpc';
import { createSheetWriter } from '@pim/sheets';
import { createTestDatabase, createTestStream } from '@pim/testing';
import { newToken } from '../../apps/gateway/src/auth/api-key.token';
import { fitCells } from '../../apps/io-jobs/src/export/export.cells';
import { NameCache } from '../../apps/io-jobs/src/export/export.names';
import { buildReport } from '../../apps/io-jobs/src/export/export.report';
import { catalogLink } from '../../apps/io-jobs/src/links/catalog.link';
import { nodeArgs } from '../start/platform';
import type { RunningPlatform } from '../start';
import { appPid, childRss, cpuByComm, cpuMs, delta, machineBusyMs, memoryOf, resetPeak } from './proc';
import { startBenchPlatform, withSection, machineOf } from './shared';

type Json = Record<string, unknown>;

const ROOT = join(__dirname, '..', '..');
const say = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const MEMORY_TARGET_MB = 300;
const XLSX_TARGET = 0.7;
const CSV_TARGET = 0.5;
/** The events stream is bounded (oldest dropped): the seeding's product events need not sit in NATS memory. */
const STREAM_MAX_BYTES = 1024 ** 3;
const APPS = ['io-jobs', 'catalog', 'gateway', 'webhooks', 'workflow', 'orders'] as const;
/** Products stored through the API (the rest are cloned from them). */
const BASE_PRODUCTS = 10_000;
const BULK_ITEMS = 1_000;
const CLONE_CHUNK = 100_000;
/** Rows written before the timed raw write, so it does not measure cold code. */
const WARMUP_ROWS = 20_000;

const ADJ = ['red', 'blue', 'compact', 'deluxe', 'eco', 'pro', 'mini', 'classic', 'smart', 'rugged', 'silent'];
const NOUNS = ['chair', 'table', 'lamp', 'drill', 'kettle', 'sofa', 'hammer', 'bottle', 'jacket', 'boot', 'cable'];
const PT = ['Café', 'Pão', 'Coração', 'Ação', 'Maçã', 'Limão', 'Avião', 'Órgão', 'Pêssego', 'Ímã'];
const OPTIONS = ['red', 'blue', 'green'];
const BRANDS = 10;
const CATEGORIES = 20;
const PER_TYPE = 2;
const pad2 = (k: number) => String(k).padStart(2, '0');

/** The 14 attribute types, two attributes of each (`<type>_1`, `<type>_2`): settings and product n's stored value for attribute k. */
const TYPES: {
  type: string;
  config?: (k: number) => Record<string, unknown>;
  value: (n: number, k: number) => unknown;
}[] = [
  {
    type: 'text',
    config: () => ({ max_length: 200 }),
    value: (n, k) => `${ADJ[(n + k) % ADJ.length]} ${NOUNS[(n * 7 + k) % NOUNS.length]} ${n % 97}`,
  },
  {
    type: 'textarea',
    config: () => ({ localizable: true }),
    value: (n) => ({ en: `Long text ${n}`, pt: `Texto longo ${n} com acentuação` }),
  },
  {
    type: 'number',
    config: (k) => (k === 1 ? { type: 'decimal', decimals: 2 } : { type: 'integer', min: 0 }),
    value: (n, k) => (k === 1 ? (n % 1000) + (n % 100) / 100 : n % 5000),
  },
  { type: 'boolean', value: (n, k) => (n + k) % 2 === 0 },
  {
    type: 'date',
    config: () => ({ min: '2020-01-01' }),
    value: (n, k) => `2024-${pad2(1 + ((n + k) % 12))}-${pad2(1 + (n % 28))}`,
  },
  {
    type: 'datetime',
    value: (n, k) =>
      `2024-${pad2(1 + ((n + k) % 12))}-${pad2(1 + (n % 28))}T${pad2(n % 24)}:${pad2((n + k) % 60)}:00.000Z`,
  },
  { type: 'select', value: (n, k) => OPTIONS[(n + k) % OPTIONS.length] },
  { type: 'multiselect', value: (n, k) => ((n + k) % 2 === 0 ? ['red', 'blue'] : ['green']) },
  {
    type: 'price',
    config: () => ({ currencies: ['BRL', 'USD'] }),
    value: (n, k) => ({ amount: (n % 500) + 0.9, currency: (n + k) % 3 === 0 ? 'USD' : 'BRL' }),
  },
  {
    type: 'metric',
    config: () => ({ units: ['kg', 'g'] }),
    value: (n, k) => ({ amount: 1 + (n % 40) / 4, unit: k === 1 ? 'kg' : 'g' }),
  },
  { type: 'url', value: (n, k) => `https://shop.example.com/p/${n}?v=${k}` },
  { type: 'email', value: (n, k) => `suporte+${(n + k) % 100}@example.com` },
  { type: 'image', value: (n, k) => `https://cdn.example.com/img/${n}-${k}.jpg` },
  { type: 'file', value: (n, k) => `https://cdn.example.com/docs/${n}-${k}.pdf` },
];

/** Product n's English and Portuguese names (the SQL clone builds the same). */
const nameOf = (n: number) => ({
  en: `${ADJ[n % ADJ.length]} ${NOUNS[Math.floor(n / ADJ.length) % NOUNS.length]} ${n}`,
  pt: `${PT[n % PT.length]} ${n}`,
});

const mb = (bytes: number) => bytes / 1e6;
const fmtMb = (bytes: number) => `${mb(bytes).toFixed(0)} MB (${(bytes / 2 ** 20).toFixed(0)} MiB)`;
const s1 = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const n0 = (x: number) => x.toLocaleString('en');
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' / ');

/** A column named by an export's headers, labelled with the field it names. */
const headerOf = (h: string) => {
  const attr = /^attributes\.(.+)$/.exec(h);
  return attr ? { label: h, value: attr[1], isAttribute: true } : { label: h, value: h, isAttribute: false };
};

/** The columns a general report writes by default for the bench's products (export.report.ts's generalDefaults). */
function defaultColumns(): string[] {
  const languages = ['en', 'pt'];
  const attributes = TYPES.flatMap(({ type }) =>
    Array.from({ length: PER_TYPE }, (_, j) => `${type}_${j + 1}`).flatMap((key) =>
      type === 'textarea' ? languages.map((l) => `attributes.${key}.${l}`) : [`attributes.${key}`],
    ),
  ).sort();
  return [
    ...['_id', 'code', 'type', 'enabled'],
    ...languages.map((l) => `name.${l}`),
    ...languages.map((l) => `description.${l}`),
    ...[
      'brand',
      'family',
      'categories',
      'category_trees',
      'parent',
      'tags',
      'image',
      'images',
      'fulfilled',
      'published',
    ],
    ...attributes,
    ...['created_at', 'updated_at'],
  ];
}

/** One pass of the export's io-jobs side replayed in the bench process over the first products. */
interface StagePass {
  stage: 'scan' | 'cells' | 'xlsx' | 'csv';
  rows: number;
  ms: number;
  /** CPU µs a row: the bench process (io-jobs's part), the catalog, the database's backends. */
  benchUs: number;
  catalogUs: number;
  postgresUs: number;
}

/** CPU (ms) used by each part between two snapshots: each app, the database's backends, every Postgres process, NATS, the bench, the machine. */
type CpuSplit = Record<(typeof APPS)[number] | 'postgres' | 'postgresAll' | 'nats' | 'bench' | 'machine', number>;

interface CpuSnapshot {
  apps: Record<string, number>;
  backends: Map<number, number>;
  byComm: Record<'postgres' | 'nats-server', Map<number, number>>;
  bench: number;
  machine: number;
}

/** An app's memory during an export: RSS at the POST, peak (VmHWM), the highest RSS sampled, and by quarter of the products written (progress shows every 2 s). */
interface Watched {
  rssAtStart: number;
  peak: number;
  sampledMax: number;
  reset: boolean;
  quarters: number[];
}

/** One export, from the POST to its file downloaded. */
interface ExportRun {
  format: 'xlsx' | 'csv';
  rows: number;
  products: number;
  columns: number;
  fileBytes: number;
  /** started_at → finished_at (the worker's time). */
  processingMs: number;
  /** POST → seen `completed` (polled every 250 ms). */
  wallMs: number;
  rate: number;
  wallRate: number;
  downloadMs: number;
  cpu: CpuSplit;
  ioJobs: Watched;
  catalog: Watched;
  load: { before: string; after: string };
  view: Json;
}

interface ExportsReport {
  machine: { cores: number; cpu: string; memory: string; node: string; postgres: string };
  products: number;
  seed: { baseMs: number; baseRate: number; cloneMs: number; setupMs: number };
  idle: { ioJobs: number; catalog: number };
  xlsx: ExportRun & {
    readBackMs: number;
    rawMs: number;
    rawRate: number;
    rawCpuMs: number;
    /** Reading the rows' JSON lines alone, as the raw write is fed (ms). */
    feedMs: number;
    rawBytes: number;
    ratio: number;
    wallRatio: number;
  };
  csv: ExportRun & {
    copyMs: number;
    copyRate: number;
    copyBackendMs: number;
    copyBytes: number;
    copyCpu: CpuSplit;
    ratio: number;
    wallRatio: number;
    /** Cells compared between the export and the COPY over the first rows, and those that differ. */
    compared: { rows: number; cells: number; differing: number; examples: string[] };
  };
  benchPeak: number;
  /** The default-columns XLSX export, when it did not complete: how long until the bench saw that, and why. */
  defaultFailure?: { ms: number; message: string };
  benchPhases: Record<string, number>;
  /** RSS of Node processes: bare, with the launcher's preloads, and with io-jobs's and the catalog's modules required. */
  floor: { bare: number; preloads: number; ioJobs: number; catalog: number };
  stages: { rows: number; describeMs: number; passes: StagePass[] };
  /** Average bytes of a product: its ScanProducts message, that message without the two attribute snapshots, and the stored jsonb columns as text. */
  sizes: { message: number; withoutSnapshots: number; attributes: number; snapshots: number; rendered: number };
  load: { start: string; end: string };
  wallMs: number;
}

/** The exports benchmark; resolves when done (exit code 1 on failure). */
export async function runExportsBench(opts: { write: boolean }): Promise<void> {
  const runStarted = performance.now();
  const args = new Set(process.argv.slice(2));
  const quick = args.has('--quick');
  const PRODUCTS = Number(
    process.env.BENCH_EXPORT_PRODUCTS ?? (quick ? 50_000 : args.has('--no-million') ? 200_000 : 1_000_000),
  );
  const base = Math.min(BASE_PRODUCTS, PRODUCTS);
  const loadAtStart = load();
  const adminKey = newToken().token;
  const db = await createTestDatabase('bench_exports');
  const stream = await createTestStream('bench_exports');
  // Files of this run only (the launcher keeps them under FILES_DIR), removed at the end.
  const dir = mkdtempSync(join(tmpdir(), 'pim-bench-exports-'));
  const saved = { FILES_DIR: process.env.FILES_DIR };
  process.env.FILES_DIR = join(dir, 'files');
  const logs: string[] = [];
  let platform: RunningPlatform | undefined;
  const pg = new Client({ connectionString: db.url });
  // The bench process's own RSS, highest by phase of the run.
  const benchPhases: Record<string, number> = {};
  let benchPhase = 'setup';
  const benchSampler = setInterval(
    () => (benchPhases[benchPhase] = Math.max(benchPhases[benchPhase] ?? 0, process.memoryUsage().rss)),
    200,
  );
  try {
    await pg.connect();
    const jsm = await jetstreamManager(stream.nc);
    await jsm.streams.update(stream.name, { max_bytes: STREAM_MAX_BYTES });
    const machine = await machineOf(pg);
    say(`machine: ${JSON.stringify(machine)}; products: ${PRODUCTS}; load average ${loadAtStart}`);
    platform = await startBenchPlatform(db, stream, adminKey, logs);
    const running = platform;
    // The apps run as started, not restarted after the seeding: a restart would compile the working
    // tree again, which may by then need migrations that ran only at the start.
    await sleep(3_000);
    const ioPid = appPid('io-jobs');
    const catalogPid = appPid('catalog');
    if (!ioPid || !catalogPid) throw new Error(`app processes not found (io-jobs ${ioPid}, catalog ${catalogPid})`);
    const idle = { ioJobs: memoryOf(ioPid).rss, catalog: memoryOf(catalogPid).rss };
    say(`io-jobs pid ${ioPid} ${fmtMb(idle.ioJobs)} idle; catalog pid ${catalogPid} ${fmtMb(idle.catalog)} idle`);
    const gateway = platform.gatewayUrl.replace(/\/api\/v1$/, '');
    const auth = { authorization: `Bearer ${adminKey}` };
    const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Json }> => {
      const res = await fetch(`${gateway}${path}`, {
        method,
        headers: body === undefined ? auth : { ...auth, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const t = await res.text();
      return { status: res.status, json: t ? (JSON.parse(t) as Json) : {} };
    };
    const create = async (path: string, body: unknown): Promise<string> => {
      const r = await api('POST', path, body);
      if (r.status !== 201 && r.status !== 200) throw new Error(`POST ${path} → ${r.status} ${JSON.stringify(r.json)}`);
      return r.json._id as string;
    };

    // The catalog: 28 attributes (two per type) in one family, brands, a category tree.
    let t = performance.now();
    const attributeIds: string[] = [];
    for (const { type, config } of TYPES)
      for (let k = 1; k <= PER_TYPE; k++) {
        const id = await create('/api/v1/attributes', {
          key: `${type}_${k}`,
          name: { en: `${type} ${k}` },
          type,
          ...(config ? { type_config: config(k) } : {}),
          association: 'product',
          protected_by_lgpd: false,
        });
        attributeIds.push(id);
        if (type === 'select' || type === 'multiselect')
          for (const value of OPTIONS)
            await create(`/api/v1/attributes/${id}/options`, { value, label: { en: value } });
      }
    const family = await create('/api/v1/families', {
      code: 'bench',
      name: { en: 'Bench' },
      attributes: attributeIds.map((_id) => ({ _id, required: false })),
    });
    const brands: string[] = [];
    for (let b = 0; b < BRANDS; b++)
      brands.push(await create('/api/v1/brands', { code: `brand_${b}`, name: { en: `Brand ${b}` } }));
    const tree = await create('/api/v1/category-trees', { code: 'main', name: { en: 'Main' } });
    const categories: string[] = [];
    for (let c = 0; c < CATEGORIES; c++)
      categories.push(
        await create('/api/v1/categories', { code: `cat_${c}`, name: { en: `Category ${c}` }, category_tree_id: tree }),
      );
    const setupMs = performance.now() - t;

    /** Waits until the catalog's outbox is published and no client backend of the database is busy (autovacuum may go on). */
    const settle = async (limitMs = 900_000): Promise<number> => {
      const from = performance.now();
      for (let quiet = 0; quiet < 3 && performance.now() - from < limitMs;) {
        const { rows } = await pg.query(
          `SELECT (SELECT count(*) FROM catalog.outbox WHERE published_at IS NULL)::int AS pending,
                  (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND state = 'active' AND pid <> pg_backend_pid())::int AS busy`,
        );
        const r = rows[0] as { pending: number; busy: number };
        quiet = r.pending === 0 && r.busy === 0 ? quiet + 1 : 0;
        await sleep(quiet > 0 ? 20 : 200);
      }
      return performance.now() - from;
    };

    // The base products through the bulk upsert, 1,000 a call, two calls in flight.
    const product = (n: number) => ({
      code: `E-${n}`,
      name: nameOf(n),
      description: { en: `The ${nameOf(n).en}, for every day`, pt: `${nameOf(n).pt}: descrição com acentuação` },
      type: 'simple',
      enabled: n % 10 !== 0,
      brand_id: brands[n % BRANDS],
      family_id: family,
      categories: [categories[n % CATEGORIES], categories[(n + 7) % CATEGORIES]],
      category_trees: [tree],
      tags: ['summer', `tag${n % 50}`],
      image: `https://cdn.example.com/main/${n}.jpg`,
      images: [`https://cdn.example.com/gallery/${n}-1.jpg`, `https://cdn.example.com/gallery/${n}-2.jpg`],
      attributes: Object.fromEntries(
        TYPES.flatMap(({ type, value }) =>
          Array.from({ length: PER_TYPE }, (_, j) => [`${type}_${j + 1}`, value(n, j + 1)]),
        ),
      ),
    });
    t = performance.now();
    const calls = Math.ceil(base / BULK_ITEMS);
    let next = 0;
    let stored = 0;
    await Promise.all(
      Array.from({ length: 2 }, async () => {
        for (let c = next++; c < calls; c = next++) {
          const items = Array.from({ length: Math.min(BULK_ITEMS, base - c * BULK_ITEMS) }, (_, k) =>
            product(c * BULK_ITEMS + k),
          );
          const r = await api('POST', '/api/v1/products/bulk', { items });
          const results = (r.json.results ?? r.json.data ?? r.json.items) as { error?: unknown }[] | undefined;
          const bad = results?.filter((x) => x.error) ?? [];
          if (r.status !== 200 || bad.length > 0)
            throw new Error(`bulk → ${r.status} ${JSON.stringify(bad[0] ?? r.json).slice(0, 800)}`);
          stored += items.length;
        }
      }),
    );
    const baseMs = performance.now() - t;
    say(
      `seed: ${stored} products through POST /products/bulk in ${s1(baseMs)} = ${(stored / (baseMs / 1000)).toFixed(0)} rows/s`,
    );
    await settle();

    // The rest: clones of the stored products (the values the app derived kept) with fresh ids,
    // codes, names, search text and dates, secondary indexes dropped and rebuilt around the load.
    t = performance.now();
    if (PRODUCTS > base) {
      const { rows: cols } = await pg.query<{ column_name: string }>(
        `SELECT column_name FROM information_schema.columns WHERE table_schema = 'catalog' AND table_name = 'products' AND is_generated = 'NEVER' ORDER BY ordinal_position`,
      );
      const words = (a: string[]) => `ARRAY[${a.map((w) => `'${w}'`).join(',')}]`;
      const nm = `jsonb_build_object('en', (${words(ADJ)})[1 + g.n % ${ADJ.length}] || ' ' || (${words(NOUNS)})[1 + (g.n / ${ADJ.length}) % ${NOUNS.length}] || ' ' || g.n, 'pt', (${words(PT)})[1 + g.n % ${PT.length}] || ' ' || g.n)`;
      const at = `now() - g.n * interval '1 second'`;
      const iso = `to_char((${at}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
      const overrides: Record<string, string> = {
        _id: `substr(md5(g.n::text || 'bench'), 1, 24)`,
        code: `'E-' || g.n`,
        name: nm,
        search_text: `'E-' || g.n || E'\\n' || (${nm}->>'en') || E'\\n' || (${nm}->>'pt')`,
        created_at: at,
        updated_at: at,
        rendered: `CASE WHEN t.rendered IS NULL THEN NULL ELSE (t.rendered::jsonb || jsonb_build_object('_id', substr(md5(g.n::text || 'bench'), 1, 24), 'code', 'E-' || g.n, 'name', ${nm}, 'created_at', ${iso}, 'updated_at', ${iso}))::text END`,
      };
      const names = cols.map((c) => c.column_name);
      const select = names.map((c) => overrides[c] ?? `t."${c}"`).join(', ');
      const sample = (
        (await pg.query(`SELECT search_text FROM catalog.products WHERE code = 'E-1'`)).rows[0] as
          { search_text: string } | undefined
      )?.search_text;
      say(`  the app's search_text of E-1: ${JSON.stringify(sample)} (the clones get code, name en, name pt by lines)`);
      const { rows: idx } = await pg.query<{ indexname: string; indexdef: string }>(
        `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'catalog' AND tablename = 'products' AND indexname NOT LIKE 'PK_%'`,
      );
      for (const i of idx) await pg.query(`DROP INDEX catalog."${i.indexname}"`);
      await pg.query(
        `CREATE TEMP TABLE seed AS SELECT p.*, substr(p.code, 3)::int AS src FROM catalog.products p WHERE code LIKE 'E-%'`,
      );
      await pg.query(`CREATE UNIQUE INDEX ON seed (src)`);
      for (let from = base; from < PRODUCTS; from += CLONE_CHUNK) {
        const to = Math.min(PRODUCTS, from + CLONE_CHUNK) - 1;
        await pg.query(
          `INSERT INTO catalog.products (${names.map((c) => `"${c}"`).join(', ')})
           SELECT ${select} FROM generate_series(${from}, ${to}) AS g(n) JOIN seed t ON t.src = g.n % ${base}`,
        );
        say(`  cloned up to ${n0(to + 1)} products (${s1(performance.now() - t)})`);
      }
      await pg.query(`DROP TABLE seed`);
      await pg.query(`SET maintenance_work_mem = '1GB'`);
      for (const i of idx) await pg.query(i.indexdef);
      await pg.query(`RESET maintenance_work_mem`);
      await pg.query(`VACUUM ANALYZE catalog.products`);
    }
    const cloneMs = performance.now() - t;
    const total = Number(
      (
        (await pg.query(`SELECT count(*)::int AS n FROM catalog.products WHERE deleted = false`)).rows[0] as {
          n: number;
        }
      ).n,
    );
    if (total !== PRODUCTS) throw new Error(`${total} live products, not ${PRODUCTS}`);
    say(`catalog: ${n0(total)} products (${n0(PRODUCTS - base)} cloned in ${s1(cloneMs)})`);

    await settle();

    const cpuSnapshot = async (): Promise<CpuSnapshot> => {
      const { rows } = await pg.query<{ pid: number }>(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
      return {
        apps: Object.fromEntries(APPS.map((a) => [a, cpuMs(appPid(a))])),
        backends: new Map(rows.map((r) => [r.pid, cpuMs(r.pid)])),
        byComm: { postgres: cpuByComm('postgres'), 'nats-server': cpuByComm('nats-server') },
        bench: cpuMs(process.pid),
        machine: machineBusyMs(),
      };
    };
    const cpuSplit = (a: CpuSnapshot, b: CpuSnapshot): CpuSplit => ({
      ...(Object.fromEntries(APPS.map((n) => [n, Math.max(0, b.apps[n] - a.apps[n])])) as Record<
        (typeof APPS)[number],
        number
      >),
      postgres: delta(a.backends, b.backends),
      postgresAll: delta(a.byComm.postgres, b.byComm.postgres),
      nats: delta(a.byComm['nats-server'], b.byComm['nats-server']),
      bench: b.bench - a.bench,
      machine: b.machine - a.machine,
    });

    /** Runs one export to `completed` (its RSS and CPU watched) and downloads its file. */
    const runExport = async (format: 'xlsx' | 'csv', headers: Json[] | undefined, file: string): Promise<ExportRun> => {
      await settle();
      if (appPid('io-jobs') !== ioPid || appPid('catalog') !== catalogPid) throw new Error('an app process changed');
      const before = await cpuSnapshot();
      const loadBefore = load();
      const watched = [ioPid, catalogPid].map((pid) => ({
        pid,
        reset: resetPeak(pid),
        rssAtStart: memoryOf(pid).rss,
        sampledMax: 0,
        quarters: [0, 0, 0, 0],
      }));
      let done = 0;
      const sampler = setInterval(() => {
        const q = Math.min(3, Math.floor((4 * done) / PRODUCTS));
        for (const w of watched) {
          try {
            const rss = memoryOf(w.pid).rss;
            w.sampledMax = Math.max(w.sampledMax, rss);
            w.quarters[q] = Math.max(w.quarters[q], rss);
          } catch {
            // gone
          }
        }
      }, 100);
      let view: Json;
      let wallMs: number;
      try {
        const posted = performance.now();
        const created = await api('POST', '/api/v1/exports', {
          file_type: format,
          report_type: 'general',
          filters: {},
          ...(headers ? { headers } : {}),
        });
        if (created.status !== 201 || created.json.status !== 'pending')
          throw new Error(`POST /exports → ${created.status} ${JSON.stringify(created.json).slice(0, 800)}`);
        const id = created.json._id as string;
        view = created.json;
        const limit = Date.now() + 600_000 + PRODUCTS * 5;
        let said = Date.now();
        while (view.status !== 'completed' && view.status !== 'failed') {
          if (Date.now() > limit)
            throw new Error(`${format} export not final in time (${JSON.stringify(view).slice(0, 300)})`);
          await sleep(250);
          const r = await api('GET', `/api/v1/exports/${id}`);
          if (r.status === 200) view = r.json;
          done = Number((view.metadata as Json | undefined)?.total_products ?? 0);
          if (Date.now() - said > 15_000) {
            say(`  ${format}: ${String(view.status)}, ${n0(done)}/${n0(PRODUCTS)} products`);
            said = Date.now();
          }
        }
        wallMs = performance.now() - posted;
      } finally {
        clearInterval(sampler);
      }
      const after = await cpuSnapshot();
      const [io, cat] = watched.map((w) => ({
        rssAtStart: w.rssAtStart,
        peak: memoryOf(w.pid).hwm,
        sampledMax: w.sampledMax,
        reset: w.reset,
        quarters: w.quarters,
      }));
      const loadAfter = load();
      if (view.status !== 'completed')
        throw new Error(`${format} export ${String(view.status)}: ${JSON.stringify(view.logs)}`);
      const startedAt = Date.parse(view.started_at as string);
      const processingMs = Date.parse(view.finished_at as string) - startedAt;
      const rows = Number(view.rows_count);
      const products = Number((view.metadata as Json).total_products);
      const dl = performance.now();
      const res = await fetch(`${gateway}/api/v1/exports/${String(view._id)}/download`, { headers: auth });
      if (res.status !== 200 || !res.body) throw new Error(`download → ${res.status} ${await res.text()}`);
      await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), createWriteStream(file));
      const downloadMs = performance.now() - dl;
      const fileBytes = statSync(file).size;
      if (fileBytes !== Number(view.file_size))
        throw new Error(`downloaded ${fileBytes} bytes, file_size ${String(view.file_size)}`);
      const run: ExportRun = {
        format,
        rows,
        products,
        columns: 0,
        fileBytes,
        processingMs,
        wallMs,
        rate: rows / (processingMs / 1000),
        wallRate: rows / (wallMs / 1000),
        downloadMs,
        cpu: cpuSplit(before, after),
        ioJobs: io,
        catalog: cat,
        load: { before: loadBefore, after: loadAfter },
        view,
      };
      say(
        `  ${format}: ${n0(products)} products, ${n0(rows)} rows, ${(fileBytes / 1e6).toFixed(1)} MB; started → finished ${s1(processingMs)} = ${run.rate.toFixed(0)} rows/s; POST → completed ${s1(wallMs)} = ${run.wallRate.toFixed(0)} rows/s; download ${s1(downloadMs)}`,
      );
      say(
        `  ${format}: io-jobs peak ${fmtMb(io.peak)} (from ${fmtMb(io.rssAtStart)}, sampled max ${fmtMb(io.sampledMax)}${io.reset ? '' : ', NOT reset'}); catalog peak ${fmtMb(cat.peak)} (from ${fmtMb(cat.rssAtStart)}, sampled max ${fmtMb(cat.sampledMax)}); RSS by quarter of the products: io-jobs ${io.quarters.map((q) => mb(q).toFixed(0)).join(' / ')} MB, catalog ${cat.quarters.map((q) => mb(q).toFixed(0)).join(' / ')} MB`,
      );
      say(
        `  ${format}: CPU (ms) ${JSON.stringify(run.cpu, (_, v: unknown) => (typeof v === 'number' ? Math.round(v) : v))}; load ${loadBefore} → ${loadAfter}`,
      );
      if (rows !== PRODUCTS || products !== PRODUCTS)
        throw new Error(`${format}: ${rows} rows of ${products} products, not ${PRODUCTS}`);
      return run;
    };

    // 1. XLSX, default columns; should that export fail, the same columns named by headers.
    benchPhase = 'XLSX export';
    say(`1. XLSX export of ${n0(PRODUCTS)} products, default columns`);
    const xlsxFile = join(dir, 'export.xlsx');
    const named = defaultColumns().map(headerOf);
    let defaultFailure: ExportsReport['defaultFailure'];
    let xlsxRun: ExportRun;
    const attempted = performance.now();
    try {
      xlsxRun = await runExport('xlsx', undefined, xlsxFile);
    } catch (err) {
      defaultFailure = { ms: performance.now() - attempted, message: (err as Error).message.slice(0, 1_500) };
      say(`  the default-columns export did not complete (${s1(defaultFailure.ms)}): ${defaultFailure.message}`);
      say(`  XLSX export again, the same ${named.length} columns named by headers`);
      xlsxRun = await runExport('xlsx', named, xlsxFile);
    }
    // The exported cells, read back (untimed) into JSON lines that feed the raw write.
    t = performance.now();
    benchPhase = 'read back';
    const linesFile = join(dir, 'rows.jsonl');
    const lines = createWriteStream(linesFile);
    let header: string[] = [];
    let readBack = 0;
    const reader = new ExcelJS.stream.xlsx.WorkbookReader(xlsxFile, {
      worksheets: 'emit',
      sharedStrings: 'cache',
      styles: 'cache',
      hyperlinks: 'ignore',
    });
    for await (const ws of reader as unknown as AsyncIterable<AsyncIterable<{ values: unknown[] }>>)
      for await (const row of ws) {
        const values = row.values.slice(1);
        if (readBack === 0) header = values.map(String);
        const cells = Array.from({ length: header.length }, (_, i) => (values[i] === undefined ? null : values[i]));
        if (!lines.write(`${JSON.stringify(cells)}\n`)) await once(lines, 'drain');
        readBack++;
      }
    lines.end();
    await once(lines, 'finish');
    const readBackMs = performance.now() - t;
    xlsxRun.columns = header.length;
    if (readBack - 1 !== xlsxRun.rows) throw new Error(`read back ${readBack - 1} rows, not ${xlsxRun.rows}`);
    say(`  read back: ${n0(readBack - 1)} rows × ${header.length} columns in ${s1(readBackMs)}`);

    /** Writes the rows of the JSON lines with exceljs's streaming writer as @pim/sheets does (styles on, no shared strings). */
    const rawWrite = async (out: string, limit: number): Promise<{ ms: number; cpuMs: number; rows: number }> => {
      const cpu0 = process.cpuUsage();
      const started = performance.now();
      const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: out, useStyles: true, useSharedStrings: false });
      const ws = wb.addWorksheet('Products');
      let rows = 0;
      for await (const line of createInterface({ input: createReadStream(linesFile), crlfDelay: Infinity })) {
        if (rows > limit) break;
        ws.addRow((JSON.parse(line) as ExcelJS.CellValue[]).map((c) => (c === null ? undefined : c))).commit();
        // A turn of the event loop every 1,000 rows, as the export's loop has between batches: the
        // writer's zip stream gets to compress and flush what was committed.
        if (++rows % 1_000 === 0) await new Promise(setImmediate);
      }
      ws.commit();
      await wb.commit();
      const cpu = process.cpuUsage(cpu0);
      return { ms: performance.now() - started, cpuMs: (cpu.user + cpu.system) / 1000, rows: rows - 1 };
    };
    benchPhase = 'raw write';
    const rawFile = join(dir, 'raw.xlsx');
    await rawWrite(rawFile, WARMUP_ROWS);
    await settle();
    const raw = await rawWrite(rawFile, Infinity);
    const rawBytes = statSync(rawFile).size;
    rmSync(rawFile, { force: true });
    t = performance.now();
    let fed = 0;
    for await (const line of createInterface({ input: createReadStream(linesFile), crlfDelay: Infinity }))
      fed += (JSON.parse(line) as unknown[]).length;
    const feedMs = performance.now() - t;
    rmSync(linesFile, { force: true });
    rmSync(xlsxFile, { force: true });
    const rawRate = raw.rows / (raw.ms / 1000);
    say(
      `  raw exceljs write: ${n0(raw.rows)} rows in ${s1(raw.ms)} = ${rawRate.toFixed(0)} rows/s (${((raw.cpuMs * 1000) / raw.rows).toFixed(0)} µs CPU a row; ${(rawBytes / 1e6).toFixed(1)} MB; feeding it the JSON lines alone ${s1(feedMs)}, ${n0(fed)} cells)`,
    );
    say(
      `  XLSX export ÷ raw write: ${(xlsxRun.rate / rawRate).toFixed(3)} (wall ${(xlsxRun.wallRate / rawRate).toFixed(3)})`,
    );

    // 2. CSV, the same columns named by headers.
    const headers = header.map(headerOf);
    benchPhase = 'CSV export';
    say(`2. CSV export of ${n0(PRODUCTS)} products, the same ${headers.length} columns named by headers`);
    const csvFile = join(dir, 'export.csv');
    const csvRun = await runExport('csv', headers, csvFile);
    csvRun.columns = headers.length;

    // The COPY of the same columns as text, from catalog.products in the scan's order.
    const types = new Map(
      TYPES.flatMap(({ type }) =>
        Array.from({ length: PER_TYPE }, (_, j) => [`${type}_${j + 1}`, type] as [string, string]),
      ),
    );
    const expr = (h: string): string => {
      const text = /^(name|description)\.(.+)$/.exec(h);
      if (text) return `p.${text[1]}->>'${text[2]}'`;
      const attr = /^attributes\.([a-z0-9_]+)(?:\.(.+))?$/.exec(h);
      if (attr) {
        const [, key, language] = attr;
        const v = `p.attributes->'${key}'`;
        if (language) return `${v}->>'${language}'`;
        switch (types.get(key)) {
          case 'multiselect':
            return `(SELECT string_agg(x, '|') FROM jsonb_array_elements_text(${v}) x)`;
          case 'price':
            return `to_char((${v}->>'amount')::numeric, 'FM999999999990.00') || ' ' || (${v}->>'currency')`;
          case 'metric':
            return `(${v}->>'amount') || ' ' || (${v}->>'unit')`;
          default:
            return `p.attributes->>'${key}'`;
        }
      }
      const codes = (table: string, column: string) =>
        `(SELECT string_agg(r.code, '|' ORDER BY u.k) FROM unnest(p.${column}) WITH ORDINALITY u(id, k) JOIN catalog.${table} r ON r."_id" = u.id)`;
      const isoOf = (c: string) => `to_char(p.${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
      const fields: Record<string, string> = {
        _id: `p."_id"`,
        code: 'p.code',
        type: 'p.type',
        enabled: 'p.enabled::text',
        brand: 'b.code',
        family: 'f.code',
        categories: codes('categories', 'categories'),
        category_trees: codes('category_trees', 'category_trees'),
        parent: `(SELECT pp.code FROM catalog.products pp WHERE pp."_id" = p.product_id)`,
        tags: `array_to_string(p.tags, '|')`,
        image: 'p.image',
        images: `array_to_string(p.images, '|')`,
        fulfilled: 'p.fulfilled::text',
        published: 'p.published::text',
        created_at: isoOf('created_at'),
        updated_at: isoOf('updated_at'),
      };
      if (!fields[h]) throw new Error(`no SQL for column ${h}`);
      return fields[h];
    };
    const copySql = `COPY (SELECT ${header.map(expr).join(', ')}
        FROM catalog.products p LEFT JOIN catalog.brands b ON b."_id" = p.brand_id LEFT JOIN catalog.families f ON f."_id" = p.family_id
        WHERE p.deleted = false ORDER BY p."_id") TO STDOUT WITH (FORMAT csv, HEADER true)`;
    benchPhase = 'COPY';
    const copyFile = join(dir, 'copy.csv');
    const ownPid = ((await pg.query(`SELECT pg_backend_pid() AS pid`)).rows[0] as { pid: number }).pid;
    await settle();
    const copyBefore = await cpuSnapshot();
    const ownBefore = cpuMs(ownPid);
    t = performance.now();
    await pipeline(pg.query(copyTo(copySql)), createWriteStream(copyFile));
    const copyMs = performance.now() - t;
    const copyBackendMs = cpuMs(ownPid) - ownBefore;
    const copyCpu = cpuSplit(copyBefore, await cpuSnapshot());
    const copyBytes = statSync(copyFile).size;
    const copyRate = PRODUCTS / (copyMs / 1000);
    say(
      `  COPY … TO STDOUT of the same columns: ${s1(copyMs)} = ${copyRate.toFixed(0)} rows/s (${(copyBytes / 1e6).toFixed(1)} MB; backend ${s1(copyBackendMs)} CPU, bench ${s1(copyCpu.bench)})`,
    );
    say(
      `  CSV export ÷ COPY: ${(csvRun.rate / copyRate).toFixed(3)} (wall ${(csvRun.wallRate / copyRate).toFixed(3)})`,
    );

    // The export's cells against the COPY's over the first rows (the same columns, the same order).
    const firstRows = async (file: string, count: number): Promise<string[][]> => {
      const out: string[][] = [];
      const parser = createReadStream(file).pipe(parse({ bom: true, to: count + 1, relax_column_count: true }));
      for await (const r of parser) out.push(r as string[]);
      return out.slice(1);
    };
    const [exported, copied] = await Promise.all([firstRows(csvFile, 2_000), firstRows(copyFile, 2_000)]);
    const compared = {
      rows: Math.min(exported.length, copied.length),
      cells: 0,
      differing: 0,
      examples: [] as string[],
    };
    for (let r = 0; r < compared.rows; r++)
      for (let c = 0; c < header.length; c++) {
        compared.cells++;
        if ((exported[r][c] ?? '') === (copied[r][c] ?? '')) continue;
        compared.differing++;
        if (compared.examples.length < 5)
          compared.examples.push(`${header[c]}: export \`${exported[r][c]}\`, COPY \`${copied[r][c]}\``);
      }
    say(
      `  first ${compared.rows} rows: ${compared.differing} of ${compared.cells} cells differ ${JSON.stringify(compared.examples)}`,
    );
    rmSync(copyFile, { force: true });
    rmSync(csvFile, { force: true });

    // 3. Where io-jobs's time goes: its side replayed in this process on the first products (the
    // catalog's scan alone, then the report's cells, then each writer into a file), the platform idle.
    const stageRows = Math.min(PRODUCTS, 50_000);
    benchPhase = 'io-jobs side replayed';
    say(`3. the export's io-jobs side in the bench process, first ${n0(stageRows)} products`);
    const link = catalogLink(`127.0.0.1:${running.ports.catalog}`);
    const everything = { filters: [], search: '' };
    const passes: StagePass[] = [];
    let describeMs = 0;
    let sizes: ExportsReport['sizes'];
    try {
      t = performance.now();
      // DescribeProducts with a deadline long enough to see how long it takes (io-jobs's link gives it 10 s).
      const products = createRpcClient(ppb.ProductsServiceClient, {
        service: 'catalog',
        address: `127.0.0.1:${running.ports.catalog}`,
        deadlineMs: 900_000,
      });
      const answer = await products
        .describeProducts({
          query: { page: 1, limit: 0, skip: 0, sort: [], filters: [], search: '', expand: [] },
        })
        .finally(() => products.close());
      describeMs = performance.now() - t;
      const described = { languages: answer.languages, attribute_keys: answer.attribute_keys };
      const attributes = new Map((await link.attributes(described.attribute_keys)).map((a) => [a.key, a]));
      const report = buildReport('general', {
        headers: [],
        attributeKeys: described.attribute_keys,
        attributes,
        languages: described.languages,
      });
      say(`  the catalog's DescribeProducts over ${n0(PRODUCTS)} products: ${s1(describeMs)}`);
      let sample: ppb.Product[] = [];
      for (const stage of ['scan', 'cells', 'xlsx', 'csv'] as const) {
        await settle();
        const file = join(dir, `stage.${stage}`);
        const out = stage === 'xlsx' || stage === 'csv' ? createWriteStream(file) : undefined;
        const writer = out
          ? createSheetWriter(stage as 'xlsx' | 'csv', out, { worksheetName: 'Products', bom: true })
          : undefined;
        if (writer) await writer.write(report.header);
        const names = new NameCache(link);
        const fail = { fields: 0 };
        const before = await cpuSnapshot();
        const cpu0 = process.cpuUsage();
        const started = performance.now();
        let rows = 0;
        for await (const batch of link.scan(everything, 1_000)) {
          if (sample.length === 0) sample = batch;
          if (stage !== 'scan') {
            await names.load(batch.flatMap((p) => report.namesOf(p)));
            const ctx = {
              names: (c: Parameters<NameCache['get']>[0], id: string | undefined) => names.get(c, id),
              relationsOf: () => [],
              attributes: report.attributes,
              fail,
            };
            for (const p of batch)
              for (const cells of report.rows(p, ctx))
                if (writer) await writer.write(stage === 'xlsx' ? fitCells(cells, fail) : cells);
          }
          rows += batch.length;
          if (rows >= stageRows) break;
        }
        if (writer) await writer.end();
        const ms = performance.now() - started;
        const cpu = process.cpuUsage(cpu0);
        const split = cpuSplit(before, await cpuSnapshot());
        rmSync(file, { force: true });
        const pass: StagePass = {
          stage,
          rows,
          ms,
          benchUs: (cpu.user + cpu.system) / rows,
          catalogUs: (split.catalog * 1000) / rows,
          postgresUs: (split.postgres * 1000) / rows,
        };
        passes.push(pass);
        say(
          `  ${stage}: ${n0(rows)} rows in ${s1(ms)} = ${(rows / (ms / 1000)).toFixed(0)} rows/s; CPU a row: bench ${pass.benchUs.toFixed(0)} µs, catalog ${pass.catalogUs.toFixed(0)} µs, Postgres backends ${pass.postgresUs.toFixed(0)} µs${fail.fields ? `; ${fail.fields} failed fields` : ''}`,
        );
      }
      const avg = (f: (p: ppb.Product) => number) => sample.reduce((a, p) => a + f(p), 0) / sample.length;
      const stored = (
        await pg.query(
          `SELECT avg(octet_length(attributes::text))::int AS attributes,
                  avg(octet_length(attributes_schema_snapshot::text) + octet_length(attributes_options_snapshot::text))::int AS snapshots,
                  avg(octet_length(rendered))::int AS rendered
             FROM (SELECT * FROM catalog.products ORDER BY "_id" LIMIT 1000) p`,
        )
      ).rows[0] as { attributes: number; snapshots: number; rendered: number };
      sizes = {
        message: avg((p) => ppb.Product.encode(p).finish().length),
        withoutSnapshots: avg(
          (p) =>
            ppb.Product.encode({
              ...p,
              attributes_schema_snapshot: undefined,
              attributes_options_snapshot: undefined,
            }).finish().length,
        ),
        ...stored,
      };
      say(
        `  a product's ScanProducts message and stored columns (bytes): ${JSON.stringify(sizes, (_, v: unknown) => (typeof v === 'number' ? Math.round(v) : v))}`,
      );
    } finally {
      link.close();
    }
    const floor = {
      bare: childRss([]),
      preloads: childRss(nodeArgs()),
      ioJobs: childRss(nodeArgs(), `require(${JSON.stringify(join(ROOT, 'apps/io-jobs/src/app.ts'))})`),
      catalog: childRss(nodeArgs(), `require(${JSON.stringify(join(ROOT, 'apps/catalog/src/app.ts'))})`),
    };
    say(
      `  RSS of a Node process: bare ${fmtMb(floor.bare)}; with the launcher's preloads ${fmtMb(floor.preloads)}; and io-jobs's modules ${fmtMb(floor.ioJobs)}; or the catalog's ${fmtMb(floor.catalog)}`,
    );

    const report: ExportsReport = {
      machine,
      products: PRODUCTS,
      seed: { baseMs, baseRate: stored / (baseMs / 1000), cloneMs, setupMs },
      idle,
      xlsx: {
        ...xlsxRun,
        readBackMs,
        rawMs: raw.ms,
        rawRate,
        rawCpuMs: raw.cpuMs,
        feedMs,
        rawBytes,
        ratio: xlsxRun.rate / rawRate,
        wallRatio: xlsxRun.wallRate / rawRate,
      },
      csv: {
        ...csvRun,
        copyMs,
        copyRate,
        copyBackendMs,
        copyBytes,
        copyCpu,
        ratio: csvRun.rate / copyRate,
        wallRatio: csvRun.wallRate / copyRate,
        compared,
      },
      benchPeak: memoryOf('self').hwm,
      defaultFailure,
      benchPhases,
      floor,
      stages: { rows: stageRows, describeMs, passes },
      sizes,
      load: { start: loadAtStart, end: load() },
      wallMs: performance.now() - runStarted,
    };
    const section = renderExports(report, { quick, base });
    if (opts.write) {
      const docPath = join(ROOT, 'docs', 'benchmarks.md');
      writeFileSync(
        docPath,
        withSection(existsSync(docPath) ? readFileSync(docPath, 'utf8') : '# Benchmarks\n', 'Exports', section),
      );
      say('written to docs/benchmarks.md (Exports section)');
    } else say(section);
    const ok = targetsMet(report);
    say(ok ? 'targets met' : 'targets NOT met');
  } catch (err) {
    say(`exports bench failed: ${(err as Error).stack ?? String(err)}\n${logs.slice(-40).join('\n')}`);
    process.exitCode = 1;
  } finally {
    clearInterval(benchSampler);
    await pg.end().catch(() => undefined);
    await platform?.stop();
    rmSync(dir, { recursive: true, force: true });
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await stream.destroy();
    await db.drop();
  }
}

const memoryMet = (r: ExportsReport) =>
  [r.xlsx, r.csv].every((x) => mb(x.ioJobs.peak) <= MEMORY_TARGET_MB && mb(x.catalog.peak) <= MEMORY_TARGET_MB);
const targetsMet = (r: ExportsReport) =>
  !r.defaultFailure && r.xlsx.ratio >= XLSX_TARGET && r.csv.ratio >= CSV_TARGET && memoryMet(r);

/** CPU of the platform during an export: its apps and its database's Postgres backends. */
const platformMs = (c: CpuSplit) => APPS.reduce((t, a) => t + c[a], 0) + c.postgres;

/** Where CPU went during an export, per row, in words. */
function cpuLine(r: ExportRun): string {
  const c = r.cpu;
  const per = (ms: number) => `${((ms * 1000) / r.rows).toFixed(0)} µs`;
  const others = c.webhooks + c.workflow + c.orders;
  const elsewhere = Math.max(0, c.machine - platformMs(c) - (c.postgresAll - c.postgres) - c.nats - c.bench);
  return (
    `io-jobs **${per(c['io-jobs'])}**, catalog **${per(c.catalog)}**, the database's Postgres backends **${per(c.postgres)}**, ` +
    `gateway ${per(c.gateway)}, the other apps ${per(others)}: ${per(platformMs(c))} a row in all; besides, NATS ${per(c.nats)}, ` +
    `Postgres's other processes ${per(c.postgresAll - c.postgres)}, the bench client ${per(c.bench)} (its polling and RSS sampling), ` +
    `anything else on the machine ${per(elsewhere)}. The machine was busy ${s1(c.machine)} of the ${s1(2 * r.wallMs)} its two cores had ` +
    `(${Math.round((100 * c.machine) / (2 * r.wallMs))} %), ${Math.round((100 * elsewhere) / Math.max(1, c.machine))} % of it outside this run`
  );
}

function renderExports(r: ExportsReport, o: { quick: boolean; base: number }): string {
  const mark = (ok: boolean) => (ok ? 'met' : '**not met**');
  const x = r.xlsx;
  const c = r.csv;
  const us = (ms: number, rows: number) => (ms * 1000) / rows;
  const rawUs = us(x.rawCpuMs, x.rows);
  const feedUs = us(x.feedMs, x.rows);
  const xIo = us(x.cpu['io-jobs'], x.rows);
  const xCat = us(x.cpu.catalog + x.cpu.postgres, x.rows);
  const cIo = us(c.cpu['io-jobs'], c.rows);
  const cCat = us(c.cpu.catalog + c.cpu.postgres, c.rows);
  const copyUs = us(c.copyBackendMs, c.rows);
  // With the catalog's side and io-jobs's side overlapping perfectly on two cores, the slower side
  // sets the rate; with none, their sum. The measured rate lies between.
  const bound = (io: number, cat: number) => ({ overlap: 1e6 / Math.max(io, cat), serial: 1e6 / (io + cat) });
  const xb = bound(xIo, xCat);
  const cb = bound(cIo, cCat);
  const million = r.products >= 1_000_000;
  const pass = (stage: StagePass['stage']) => r.stages.passes.filter((p) => p.stage === stage);
  const scans = pass('scan');
  const scan = scans.reduce((a, b) => (b.ms < a.ms ? b : a));
  const [cells] = pass('cells');
  const [xw] = pass('xlsx');
  const [cw] = pass('csv');
  const rate = (p: StagePass) => p.rows / (p.ms / 1000);
  const catSide = (p: StagePass) => p.catalogUs + p.postgresUs;
  const q = (w: Watched) => w.quarters.map((v) => mb(v).toFixed(0)).join(' / ');
  const grows = (w: Watched) => w.quarters[3] - w.quarters[1] > 0.05 * w.quarters[3];
  const rssRows = (label: string, e: ExportRun) =>
    `| ${label}: io-jobs peak RSS (VmHWM${e.ioJobs.reset ? ', reset before the POST' : ', since its start'}; ${fmtMb(e.ioJobs.rssAtStart)} at the POST) | **${fmtMb(e.ioJobs.peak)}** | ≤ ${MEMORY_TARGET_MB} MB | ${mark(mb(e.ioJobs.peak) <= MEMORY_TARGET_MB)} |
| ${label}: catalog peak RSS (${fmtMb(e.catalog.rssAtStart)} at the POST) | **${fmtMb(e.catalog.peak)}** | ≤ ${MEMORY_TARGET_MB} MB | ${mark(mb(e.catalog.peak) <= MEMORY_TARGET_MB)} |`;
  const stageRow = (label: string, p: StagePass) =>
    `| ${label} | ${rate(p).toFixed(0)} | ${p.benchUs.toFixed(0)} | ${p.catalogUs.toFixed(0)} | ${p.postgresUs.toFixed(0)} |`;
  return `## Exports

Produced by \`npm run bench -- exports\` (\`tools/bench/exports.ts\`) on ${new Date().toISOString().slice(0, 10)}${o.quick ? ' **with --quick (reduced size)**' : ''}: ${r.machine.cores} × ${r.machine.cpu},
${r.machine.memory}, PostgreSQL ${r.machine.postgres} (local, default settings), Node ${r.machine.node}. The whole platform (gateway,
every app, NATS, Postgres) and the bench client share these cores, and **other work ran on the machine during this
run** (other engineers' tests): load average (1 / 5 / 15 min) ${r.load.start} at the start, ${r.load.end} at the end
(${s1(r.wallMs)} later); the share of the machine's CPU outside this run during each export is given below.${
    million ? '' : ` **This run exported ${n0(r.products)} products, not 1,000,000${o.quick ? ' (--quick)' : ''}.**`
  }

Catalog: 28 attributes, two of each of the 14 types (textareas localizable), all in one family, ${BRANDS} brands, ${CATEGORIES}
categories in one tree. ${n0(o.base)} products stored through \`POST /api/v1/products/bulk\` (1,000 a call, two calls in flight;
${s1(r.seed.baseMs)} = ${r.seed.baseRate.toFixed(0)} rows/s), ${
    r.products > o.base
      ? `the other ${n0(r.products - o.base)} cloned from them by SQL (fresh ids, codes, names, search text and dates;
the values, snapshots, completeness and rendering the app derived kept) with the secondary indexes dropped and rebuilt,
then \`VACUUM ANALYZE\` (${s1(r.seed.cloneMs)})`
      : 'none cloned'
  }: ${n0(r.products)} live products, each with a code, names and descriptions (en, pt), a brand, the family, two
categories, tags, an image, two gallery images and 30 typed attribute values. io-jobs and the catalog held ${fmtMb(r.idle.ioJobs)} and ${fmtMb(r.idle.catalog)} idle just after the
platform started, before the seeding (they are not restarted after it).

| measure | result | target | |
|---|---|---|---|
${
  r.defaultFailure
    ? `| XLSX export, default columns (no \`headers\`) | **failed** ${s1(r.defaultFailure.ms)} after the POST, every try alike: \`${/Failed: ([^"]*)/.exec(r.defaultFailure.message)?.[1] ?? r.defaultFailure.message.slice(0, 200)}\` (\`DescribeProducts\` over ${n0(r.products)} products, called later from the bench process, took ${s1(r.stages.describeMs)}; io-jobs allows it 10 s) | completes | **not met** |
`
    : ''
}| XLSX export, ${r.defaultFailure ? `the same ${x.columns} default columns named by \`headers\`` : `default columns (no \`headers\`: ${x.columns} columns)`}, ${n0(x.rows)} rows, ${(x.fileBytes / 1e6).toFixed(1)} MB: \`started_at\` → \`finished_at\` | ${s1(x.processingMs)} = **${x.rate.toFixed(0)} rows/s** | | |
| the same, POST → \`completed\` seen by polling (every 250 ms) | ${s1(x.wallMs)} = ${x.wallRate.toFixed(0)} rows/s | | |
| raw exceljs streaming \`WorkbookWriter\` (styles on, no shared strings, as @pim/sheets) of the same rows' cells to a temp file, in the bench process | ${s1(x.rawMs)} = ${x.rawRate.toFixed(0)} rows/s | baseline | |
| XLSX export ÷ raw write | **${x.ratio.toFixed(3)}** (POST → completed: ${x.wallRatio.toFixed(3)}) | ≥ ${XLSX_TARGET} | ${mark(x.ratio >= XLSX_TARGET)} |
| CSV export, the same ${c.columns} columns named by \`headers\`, ${n0(c.rows)} rows, ${(c.fileBytes / 1e6).toFixed(1)} MB: \`started_at\` → \`finished_at\` | ${s1(c.processingMs)} = **${c.rate.toFixed(0)} rows/s** | | |
| the same, POST → \`completed\` | ${s1(c.wallMs)} = ${c.wallRate.toFixed(0)} rows/s | | |
| \`COPY (SELECT <the same ${c.columns} columns as text> FROM catalog.products …) TO STDOUT\` (pg-copy-streams) to a file | ${s1(c.copyMs)} = ${c.copyRate.toFixed(0)} rows/s (${(c.copyBytes / 1e6).toFixed(1)} MB) | baseline | |
| CSV export ÷ COPY | **${c.ratio.toFixed(3)}** (POST → completed: ${c.wallRatio.toFixed(3)}) | ≥ ${CSV_TARGET} | ${mark(c.ratio >= CSV_TARGET)} |
${rssRows('XLSX', x)}
${rssRows('CSV', c)}

How it is measured:

- **Export time** is the export's own \`started_at\` → \`finished_at\` (the worker's claim to the file
  stored), rows/s its \`rows_count\` (${n0(x.rows)}, one per product, checked) over it. An export that names no
  columns first asks the catalog to describe the products (\`DescribeProducts\`: the languages and attribute
  keys in use, aggregated in Postgres over all ${n0(r.products)}; the same call from the bench process, with a long
  deadline, took ${s1(r.stages.describeMs)}); one that names them skips that.${
    r.defaultFailure
      ? ` **The default-columns export failed** (above): io-jobs's catalog link
  gives \`DescribeProducts\` the 10 s deadline of its unary calls (\`DEADLINE_MS\` in
  \`apps/io-jobs/src/links/catalog.link.ts\`), every try ran out of it, and after \`EXPORT_ATTEMPTS\` tries the export
  was \`failed\`; so the XLSX figures are of the same columns named by \`headers\`, which skips the description.`
      : ''
  } POST → \`completed\` adds the queue (pg-boss) and the polling.
  Each file was then downloaded (\`GET /exports/{id}/download\`: XLSX ${s1(x.downloadMs)}, CSV ${s1(c.downloadMs)}) and its
  size checked against \`file_size\`. Before each export the run waits until the outbox is published and the
  database's sessions idle.
- **Raw write**: the XLSX export's file is read back (exceljs \`WorkbookReader\`, untimed, ${s1(x.readBackMs)}) into a
  file of JSON lines, one row's cells a line; the timed write reads those lines and writes each row with
  \`addRow(cells).commit()\` into \`new ExcelJS.stream.xlsx.WorkbookWriter({filename, useStyles: true,
  useSharedStrings: false})\`, after a warm-up write of ${n0(WARMUP_ROWS)} rows: the same cells (strings, numbers,
  booleans, empty cells), the same writer settings (${(x.rawBytes / 1e6).toFixed(1)} MB written; the export's file ${(x.fileBytes / 1e6).toFixed(1)} MB).
  It used ${rawUs.toFixed(0)} µs of CPU a row; feeding it (reading and parsing the JSON lines alone) takes ${s1(x.feedMs)}
  (${feedUs.toFixed(0)} µs a row), which the baseline carries: without it the ratio would be ${(x.rate / (x.rows / ((x.rawMs - x.feedMs) / 1000))).toFixed(3)}.
- **COPY**: the SQL writes the cells the export writes, from \`catalog.products\` in \`_id\` order (the
  scan's): ids, codes, \`enabled\`/\`published\` as \`true\`/\`false\`, names and descriptions per language,
  brand and family codes (joins), category and tree codes (a lookup per row), lists joined by \`|\`, prices with
  two decimals and their currency, measures with their unit, multiselects joined, dates as the API's ISO text.
  Over the first ${n0(c.compared.rows)} rows ${n0(c.compared.differing)} of ${n0(c.compared.cells)} cells differ from the export's${c.compared.examples.length ? ` (${c.compared.examples.join('; ')})` : ''}. Its backend used ${s1(c.copyBackendMs)} of CPU
  (${copyUs.toFixed(1)} µs a row).
- **Memory**: each app found as a child process of the launcher by its \`apps/<name>/src/main.ts\` command
  line; before each POST its peak is reset (\`echo 5 > /proc/<pid>/clear_refs\`) and \`VmHWM\` read once the
  export is completed, so each figure is that export's alone. \`VmRSS\` sampled every 100 ms, highest by quarter of
  the products written: XLSX io-jobs ${q(x.ioJobs)} MB, catalog ${q(x.catalog)} MB; CSV io-jobs ${q(c.ioJobs)} MB,
  catalog ${q(c.catalog)} MB. The bench process itself peaked at ${fmtMb(r.benchPeak)} (highest RSS sampled by phase: ${Object.entries(
    r.benchPhases,
  )
    .map(([k, v]) => `${k} ${mb(v).toFixed(0)} MB`)
    .join(', ')})${
    mb(r.benchPhases['raw write'] ?? 0) > 1_000
      ? ` — **not bounded during the raw write**: exceljs's streaming writer takes rows with no
  backpressure from its zip stream, so rows built faster than deflate compresses them queue in memory. The timer
  stops only once \`commit()\` has flushed the whole file, so the rate is not inflated by it (deflate, on another
  thread, is what the raw write waits for). The export uses the same writer and checks only its output's
  \`writableNeedDrain\`: it stayed bounded here because the scan fed it ${x.rate.toFixed(0)} rows/s, under the ${x.rawRate.toFixed(0)} rows/s deflate keeps
  up with; a faster feed would queue in io-jobs the same way`
      : ''
  }.
- **CPU** from /proc (\`utime + stime\` of each process, the database's backends from \`pg_stat_activity\`),
  POST → completed, per row:
  - XLSX: ${cpuLine(x)}.
  - CSV: ${cpuLine(c)}.

Where the time goes: io-jobs's side of the export replayed in the bench process over the first ${n0(r.stages.rows)}
products, the platform otherwise idle — the catalog's \`ScanProducts\` stream (batches of 1,000) read by the
io-jobs catalog client, then the report's cells (the export's \`buildReport\` with its default columns and
\`NameCache\`), then each writer of @pim/sheets into a file. CPU a row:

| pass | rows/s | bench process (io-jobs's part), µs | catalog, µs | its Postgres backends, µs |
|---|---|---|---|---|
${scans.map((p, i) => stageRow(`scan alone${scans.length > 1 ? ` (${i === 0 ? 'first' : 'again, last'})` : ''}`, p)).join('\n')}
${stageRow('scan + cells', cells)}
${stageRow('scan + cells + XLSX writer', xw)}
${stageRow('scan + cells + CSV writer', cw)}

So on io-jobs's side a row costs about ${scan.benchUs.toFixed(0)} µs to receive and decode, ${Math.max(0, cells.benchUs - scan.benchUs).toFixed(0)} µs to build its cells,
${Math.max(0, xw.benchUs - cells.benchUs).toFixed(0)} µs to write as XLSX (the raw write: ${rawUs.toFixed(0)} µs) or ${Math.max(0, cw.benchUs - cells.benchUs).toFixed(0)} µs as CSV; the catalog's side (reading the
entities, the views, protobuf encoding) about ${catSide(scan).toFixed(0)} µs with its backends. A product's \`ScanProducts\` message, as an export asks for it, is
${(r.sizes.message / 1000).toFixed(1)} KB${
    r.sizes.message > r.sizes.withoutSnapshots
      ? `, of which ${((r.sizes.message - r.sizes.withoutSnapshots) / 1000).toFixed(1)} KB are the two attribute snapshots (\`attributes_schema_snapshot\`, \`attributes_options_snapshot\`), which no export column reads`
      : `: the export leaves out (\`omit\`) the two attribute snapshots, which no export column reads and which the catalog would otherwise read, convert and encode, and io-jobs decode, for every product (${(r.sizes.snapshots / 1000).toFixed(1)} KB as stored JSON, against ${(r.sizes.attributes / 1000).toFixed(1)} KB of attribute values; with them the message was 7.3 KB and the ratios 0.449 and 0.210 in the run before this one)`
  }.

What bounds the ratios:

- **XLSX ÷ raw write ${x.ratio >= XLSX_TARGET ? '(met)' : '(not met)'}**: during the export io-jobs spent ${xIo.toFixed(0)} µs of CPU a row against the raw
  writer's ${rawUs.toFixed(0)} µs (${(xIo / rawUs).toFixed(2)}×), and the catalog with its backends ${xCat.toFixed(0)} µs. Overlapped perfectly on the two
  cores the slower side caps the export near ${xb.overlap.toFixed(0)} rows/s (${(xb.overlap / x.rawRate).toFixed(2)} of the raw write); one after the other
  ${xb.serial.toFixed(0)} rows/s (${(xb.serial / x.rawRate).toFixed(2)}); it ran ${x.rate.toFixed(0)} rows/s. The catalog's scan alone, read by a client that only
  decodes it, ran ${rate(scan).toFixed(0)} rows/s: ${(rate(scan) / x.rawRate).toFixed(2)} of the raw write${
    rate(scan) / x.rawRate < XLSX_TARGET
      ? ` — under the target before a single cell is written, so the scan (the catalog's entities, views and protobuf, the snapshots included, and the client's decoding) bounds this ratio first`
      : ''
  }${
    xIo > rawUs / XLSX_TARGET
      ? `; and io-jobs's own CPU a row is over the raw write's ÷ ${XLSX_TARGET}, so a free catalog would not meet it either: decoding and cells add ${Math.max(0, cells.benchUs).toFixed(0)} µs to the writer's`
      : ''
  }.
- **CSV ÷ COPY ${c.ratio >= CSV_TARGET ? '(met)' : '(not met)'}**: the COPY is one Postgres backend formatting text (${copyUs.toFixed(1)} µs a row);
  the export is the same read plus the catalog's entities, views and protobuf (${cCat.toFixed(0)} µs a row with its
  backends) and io-jobs's decoding, cells and csv-stringify (${cIo.toFixed(0)} µs a row). Overlapped perfectly that caps
  it near ${cb.overlap.toFixed(0)} rows/s (${(cb.overlap / c.copyRate).toFixed(2)} of the COPY), one after the other ${cb.serial.toFixed(0)} rows/s (${(cb.serial / c.copyRate).toFixed(2)}); the
  scan alone ran ${rate(scan).toFixed(0)} rows/s, ${(rate(scan) / c.copyRate).toFixed(2)} of the COPY${
    rate(scan) / c.copyRate < CSV_TARGET
      ? ` — under the target with no CSV written at all: the catalog's per-row cost of the scan (${catSide(scan).toFixed(0)} µs against the COPY's ${copyUs.toFixed(1)} µs) has to fall before any change in io-jobs, batching or concurrency can meet it`
      : ''
  }.
- **Memory ${memoryMet(r) ? '(met)' : '(not met)'}**: io-jobs went from ${fmtMb(x.ioJobs.rssAtStart)} to ${fmtMb(x.ioJobs.peak)} during the XLSX export and from
  ${fmtMb(c.ioJobs.rssAtStart)} to ${fmtMb(c.ioJobs.peak)} during the CSV one; the catalog from ${fmtMb(x.catalog.rssAtStart)} to ${fmtMb(x.catalog.peak)} and from
  ${fmtMb(c.catalog.rssAtStart)} to ${fmtMb(c.catalog.peak)}. ${
    [x.ioJobs, c.ioJobs, x.catalog, c.catalog].some(grows)
      ? 'RSS still rose between the second and the last quarter of the products in at least one of them (see above)'
      : 'RSS stayed within 5 % of its level at the first quarter of the products in every case: a working set of a few batches, not one that grows with the file'
  }. The floor is the launcher's, before any export: a bare Node process holds ${fmtMb(r.floor.bare)}, with the
  launcher's preloads (orphan guard, swc-node's in-process TypeScript compiler) ${fmtMb(r.floor.preloads)}, and with io-jobs's
  modules required ${fmtMb(r.floor.ioJobs)} (the catalog's: ${fmtMb(r.floor.catalog)})${
    mb(Math.min(r.idle.ioJobs, r.idle.catalog)) > MEMORY_TARGET_MB * 0.9
      ? ` — idle, io-jobs (${fmtMb(r.idle.ioJobs)}) and the catalog (${fmtMb(r.idle.catalog)}) are at or over the target before exporting anything`
      : ''
  }; above it, each export's batches in flight (1,000 products of ${(r.sizes.message / 1000).toFixed(1)} KB as protobuf, more as
  JavaScript objects, in the catalog, in gRPC's buffers and in io-jobs) and the heap V8 keeps once grown (how much of
  the rise is live data and how much V8's headroom was not measured).
`;
}
