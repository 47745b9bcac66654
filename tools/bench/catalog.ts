// `npm run bench -- catalog`: the catalog benchmarks, written to docs/benchmarks.md
// (its "Catalog" section).
//   1. Generator: taxonomy and attributes shaped like Akeneo's "medium" catalog, created through
//      the API; N products (BENCH_PRODUCTS, default 1,000,000) loaded with COPY into
//      catalog.products, cloned from products the app itself wrote (so snapshots, completeness
//      and search_text are what the app derives), with fresh ids, codes and names.
//   --keep-db leaves the database behind (its name is printed) to look at query plans on it.
//   2. Ratios in the same run: bulk upsert rows/s ÷ COPY rows/s of the same rows; GET by id
//      through the gateway ÷ a one-process node:http + pg server; p50/p95 of a search page.
//   3. Access (docs/decisions/access.md): the products are spread over catalogs; the same search
//      page as a user whose users group sees 3 of the 10 catalogs ÷ as a user with full access.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from 'pg';
import { Agent, request } from 'undici';
import { newId } from '@pim/ids';
import { createTestDatabase, createTestStream } from '@pim/testing';
import { newToken } from '../../apps/gateway/src/auth/api-key.token';
import type { RunningPlatform } from '../start';
import { percentile, pool, startBenchPlatform, withSection } from './shared';

const ROOT = join(__dirname, '..', '..');
const say = (line: string) => process.stdout.write(`${line}\n`);
const PRODUCTS = Number(process.env.BENCH_PRODUCTS ?? 1_000_000);
/** A time budget for COPYing the big catalog: past it no further chunk starts, and the run goes on with the products loaded (the report states how many). */
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? Infinity);
const SIZES = {
  groups: 20,
  attributes: 300,
  brands: 150,
  families: 40,
  roots: 40,
  categories: 2_000,
  bulkCalls: 20,
  bulkSeconds: 120,
  getSeconds: 10,
  searches: 200,
  searchSeconds: 120,
  catalogs: 10,
  seenCatalogs: 3,
};
const CONCURRENCY = 32;
const NOUNS = [
  'chair',
  'table',
  'lamp',
  'drill',
  'kettle',
  'sofa',
  'hammer',
  'bottle',
  'jacket',
  'boot',
  'cable',
  'router',
  'monitor',
  'pillow',
  'blender',
  'helmet',
  'tent',
  'scarf',
  'printer',
  'speaker',
];
const ADJ = [
  'red',
  'blue',
  'compact',
  'deluxe',
  'eco',
  'pro',
  'mini',
  'classic',
  'smart',
  'rugged',
  'silent',
  'vintage',
  'solar',
  'wireless',
  'modular',
];
/**
 * SQL: the `catalogs` entries of a product from `h`, an SQL expression of a hash of its number
 * (0 … 2^28-1): one of the catalogs, and for a third of the products a second, other one; no
 * entry names users groups of its own. A user seeing 3 of 10 catalogs sees ~38 % of them
 * (0.3 × 2/3 + (1 − 0.7 × 6/9) × 1/3).
 */
const catalogsSql = (catalogIds: string[], h: string): string => {
  const ids = `ARRAY[${catalogIds.map((id) => `'${id}'`).join(',')}]`;
  const n = catalogIds.length;
  const entry = (i: string) => `jsonb_build_object('_id', (${ids})[1 + ${i}], 'user_groups', '[]'::jsonb)`;
  const first = `${h} % ${n}`;
  const second = `(${h} % ${n} + 1 + (${h} / ${3 * n}) % ${n - 1}) % ${n}`;
  return `CASE WHEN (${h} / ${n}) % 3 = 0 THEN jsonb_build_array(${entry(first)}, ${entry(second)}) ELSE jsonb_build_array(${entry(first)}) END`;
};
/** SQL: the hash `catalogsSql` takes, of product number `n` (an SQL expression). */
const catalogHashSql = (n: string): string => `('x' || substr(md5((${n})::text || 'catalogs'), 1, 7))::bit(28)::int`;
const PT = ['Café', 'Pão', 'Coração', 'Ação', 'Maçã', 'Limão', 'Avião', 'Órgão', 'Pêssego', 'Ímã'];
const OPTIONS = ['red', 'blue', 'green'];
const pad2 = (k: number) => String(k).padStart(2, '0');

/**
 * The 14 attribute types as the bench uses them: attribute `a` has type TYPES[a % 14], its
 * type_config, and product `n`'s value for it. Each product's two groups hold attributes of
 * opposite parity, so every product carries values of all 14 types.
 */
const TYPES: { type: string; config?: Record<string, unknown>; value: (n: number, a: number) => unknown }[] = [
  { type: 'text', config: { max_length: 200 }, value: (n, a) => `${ADJ[(n + a) % ADJ.length]} value ${n % 97}` },
  {
    type: 'textarea',
    config: { localizable: true },
    value: (n) => ({ en: `Long text ${n}`, pt: `Texto longo ${n} com acentuação` }),
  },
  { type: 'number', value: (n, a) => (n * 31 + a) % 1000 },
  { type: 'boolean', value: (n) => n % 2 === 0 },
  { type: 'date', value: (n) => `2024-${pad2(1 + (n % 12))}-${pad2(1 + (n % 28))}` },
  { type: 'datetime', value: (n) => `2024-01-${pad2(1 + (n % 28))}T12:${pad2(n % 60)}:00-03:00` },
  { type: 'select', value: (n) => OPTIONS[n % OPTIONS.length] },
  { type: 'multiselect', value: (n) => (n % 2 === 0 ? ['blue', 'red'] : ['green']) },
  {
    type: 'price',
    config: { currencies: ['BRL', 'USD'] },
    value: (n) => ({ amount: (n % 500) + 0.99, currency: n % 3 === 0 ? 'USD' : 'BRL' }),
  },
  { type: 'metric', config: { units: ['kg', 'g'] }, value: (n) => ({ amount: 1 + (n % 40) / 4, unit: 'kg' }) },
  { type: 'url', value: (n) => `https://shop.example.com/p/${n}` },
  { type: 'email', value: (n) => `support+${n % 100}@example.com` },
  { type: 'image', value: (n) => `https://cdn.example.com/img/${n}.jpg` },
  { type: 'file', value: (n) => `https://cdn.example.com/docs/${n}.pdf` },
];

/** Replaces (or appends) the "## Catalog" section of docs/benchmarks.md, keeping the rest. */
export const withCatalogSection = (doc: string, section: string): string => withSection(doc, 'Catalog', section);

/** The catalog benchmark; resolves when done (exit code 1 on failure). */
export async function runCatalogBench(opts: { write: boolean; keepDb?: boolean }): Promise<void> {
  const keepDb = opts.keepDb ?? process.argv.includes('--keep-db');
  const machine = {
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memory: `${Math.round(totalmem() / 2 ** 30)} GiB`,
    node: process.version,
  };
  const adminKey = newToken().token;
  // A kept database is named apart (pim_benchcatalogkept_…) so it is known as one left on purpose.
  const db = await createTestDatabase(keepDb ? 'bench_catalog_kept' : 'bench_catalog');
  const stream = await createTestStream('bench_catalog');
  const logs: string[] = [];
  const copyFiles: string[] = [];
  let platform: RunningPlatform | undefined;
  const baselines: ReturnType<typeof spawn>[] = [];
  const pg = new Client({ connectionString: db.url });
  const agent = new Agent({ connections: CONCURRENCY, keepAliveTimeout: 30_000 });
  try {
    await pg.connect();
    const postgres = ((await pg.query(`SHOW server_version`)).rows[0] as { server_version: string }).server_version;
    say(`machine: ${JSON.stringify({ ...machine, postgres })}; products: ${PRODUCTS}`);
    platform = await startBenchPlatform(db, stream, adminKey, logs);
    const base = platform.gatewayUrl.replace(/\/api\/v1$/, '');
    const auth = { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' };
    const call = async (
      method: 'GET' | 'POST',
      path: string,
      body?: unknown,
      key = adminKey,
    ): Promise<{ status: number; json: Record<string, unknown> }> => {
      const r = await request(`${base}${path}`, {
        method,
        headers: { ...auth, authorization: `Bearer ${key}` },
        body: body === undefined ? undefined : JSON.stringify(body),
        dispatcher: agent,
      });
      const text = await r.body.text();
      return { status: r.statusCode, json: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
    };
    const create = async (path: string, body: unknown): Promise<string> => {
      const r = await call('POST', path, body);
      if (r.status !== 201 && r.status !== 200) throw new Error(`POST ${path} → ${r.status} ${JSON.stringify(r.json)}`);
      return r.json._id as string;
    };
    const createMany = async (n: number, path: string, body: (i: number) => unknown): Promise<string[]> => {
      const ids: string[] = [];
      const r = await pool(n, 600_000, 16, async (i) => {
        ids[i] = await create(path, body(i));
      });
      if (r.done < n) throw new Error(`only ${r.done}/${n} ${path} created`);
      return ids;
    };

    // 1. The "medium"-shaped catalog, through the API.
    let t = performance.now();
    const groups = await createMany(SIZES.groups, '/api/v1/attribute-groups', (i) => ({
      key: `group_${i}`,
      name: { en: `Group ${i}` },
    }));
    const attrs = await createMany(SIZES.attributes, '/api/v1/attributes', (i) => ({
      key: `attr_${i}`,
      name: { en: `Attribute ${i}` },
      type: TYPES[i % TYPES.length].type,
      ...(TYPES[i % TYPES.length].config ? { type_config: TYPES[i % TYPES.length].config } : {}),
      groups: [{ _id: groups[i % SIZES.groups], required: i % 10 === 0 }],
      association: 'product_and_sku',
      protected_by_lgpd: false,
    }));
    const choosing = attrs.flatMap((id, i) =>
      ['select', 'multiselect'].includes(TYPES[i % TYPES.length].type) ? [id] : [],
    );
    const options = await pool(choosing.length * OPTIONS.length, 600_000, 16, async (k) => {
      await create(`/api/v1/attributes/${choosing[Math.floor(k / OPTIONS.length)]}/options`, {
        value: OPTIONS[k % OPTIONS.length],
        label: { en: OPTIONS[k % OPTIONS.length] },
      });
    });
    if (options.done < choosing.length * OPTIONS.length)
      throw new Error(`only ${options.done} attribute options created`);
    const brands = await createMany(SIZES.brands, '/api/v1/brands', (i) => ({
      code: `brand_${i}`,
      name: { en: `Brand ${i}` },
    }));
    const families = await createMany(SIZES.families, '/api/v1/families', (i) => ({
      code: `family_${i}`,
      name: { en: `Family ${i}` },
    }));
    const tree = await create('/api/v1/category-trees', { code: 'master', name: { en: 'Master' } });
    const roots = await createMany(SIZES.roots, '/api/v1/categories', (i) => ({
      code: `cat_${i}`,
      name: { en: `Category ${i}` },
      category_tree_id: tree,
    }));
    const children = await createMany(SIZES.categories - SIZES.roots, '/api/v1/categories', (i) => ({
      code: `cat_${SIZES.roots + i}`,
      name: { en: `Category ${SIZES.roots + i}` },
      category_tree_id: tree,
      parent_id: roots[i % SIZES.roots],
    }));
    const categories = [...roots, ...children];
    const metaMs = performance.now() - t;
    say(
      `catalog: ${groups.length} groups, ${attrs.length} attributes, ${brands.length} brands, ${families.length} families, ${categories.length} categories in ${(metaMs / 1000).toFixed(1)} s`,
    );

    // 1a. Access, through the API: a users group seeing the first 3 of the 10 catalogs, one with
    // full product access, and a `products:read` key bound to a user of each.
    const users = { restricted: newId(), full: newId() };
    const seeingGroup = await create('/api/v1/users-groups', {
      source_id: 'bench',
      name: 'Bench restricted',
      users: [{ id: users.restricted, name: 'Bench Restricted' }],
    });
    await create('/api/v1/users-groups', {
      source_id: 'bench',
      name: 'Bench full access',
      has_full_product_access: true,
      users: [{ id: users.full, name: 'Bench Full' }],
    });
    const catalogs = await createMany(SIZES.catalogs, '/api/v1/catalogs', (i) => ({
      code: `catalog_${i}`,
      name: { en: `Catalog ${i}` },
      user_groups: i < SIZES.seenCatalogs ? [seeingGroup] : [],
    }));
    const keyOf = async (user_id: string, user_name: string): Promise<string> => {
      const r = await call('POST', '/api/v1/api-keys', {
        name: user_name,
        scopes: ['products:read'],
        user_id,
        user_name,
      });
      if (r.status !== 201 || typeof r.json.key !== 'string')
        throw new Error(`POST /api/v1/api-keys → ${r.status} ${JSON.stringify(r.json)}`);
      return r.json.key;
    };
    const keys = {
      restricted: await keyOf(users.restricted, 'Bench Restricted'),
      full: await keyOf(users.full, 'Bench Full'),
    };

    // 2a. Bulk upsert through the gateway, 1,000 items a call.
    const product = (n: number) => {
      const g1 = n % SIZES.groups;
      const g2 = (n + 7) % SIZES.groups;
      const attributes: Record<string, unknown> = {};
      for (let a = 0; a < SIZES.attributes; a++) {
        if (a % SIZES.groups !== g1 && a % SIZES.groups !== g2) continue;
        attributes[`attr_${a}`] = TYPES[a % TYPES.length].value(n, a);
      }
      return {
        code: `SKU-${n}`,
        name: {
          en: `${ADJ[n % ADJ.length]} ${NOUNS[Math.floor(n / ADJ.length) % NOUNS.length]} ${n}`,
          pt: `${PT[n % PT.length]} ${n}`,
        },
        type: 'simple',
        brand_id: brands[n % brands.length],
        family_id: families[n % families.length],
        categories: [categories[n % categories.length]],
        category_trees: [tree],
        attribute_groups: [groups[g1], groups[g2]],
        attributes,
        tags: [`tag${n % 50}`],
      };
    };
    // Each bulk call is paired with a COPY of the rows it stored into a scratch table with the same
    // columns and indexes, right after it: both see the same machine load and index sizes.
    const file = (name: string) => {
      const f = `/tmp/pim-bench-${db.url.split('/').pop()}-${name}.copy`;
      copyFiles.push(f);
      return f;
    };
    // Stored columns only: generated ones (search_folded) are computed by the scratch table itself, as by products.
    const { rows: storedColumns } = await pg.query(
      `SELECT column_name FROM information_schema.columns WHERE table_schema = 'catalog' AND table_name = 'products' AND is_generated = 'NEVER' ORDER BY ordinal_position`,
    );
    const columnList = (storedColumns as { column_name: string }[]).map((c) => `"${c.column_name}"`).join(', ');
    await pg.query(`CREATE TABLE catalog.bench_scratch (LIKE catalog.products INCLUDING ALL)`);
    const batchFile = file('batch');
    // Waits until the catalog's outbox is published and no other backend of this database is busy
    // (the relay and the webhooks fan-out have caught up), so neither timed side carries the
    // other's leftovers; returns how long that took.
    const settle = async (): Promise<number> => {
      const from = performance.now();
      for (let quiet = 0; quiet < 3 && performance.now() - from < 60_000;) {
        const { rows } = await pg.query(
          `SELECT (SELECT count(*) FROM catalog.outbox WHERE published_at IS NULL)::int AS pending,
                  (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid())::int AS busy`,
        );
        const r = rows[0] as { pending: number; busy: number };
        quiet = r.pending === 0 && r.busy === 0 ? quiet + 1 : 0;
        await new Promise((done) => setTimeout(done, 20));
      }
      return performance.now() - from;
    };
    let tailMs = 0;
    let bulkRows = 0;
    let bulkErrors = 0;
    let bulkMs = 0;
    let copyMs = 0;
    await pool(SIZES.bulkCalls, SIZES.bulkSeconds * 1000, 1, async (c) => {
      const items = Array.from({ length: 1_000 }, (_, k) => product(c * 1_000 + k));
      await settle();
      const started = performance.now();
      const r = await call('POST', '/api/v1/products/bulk', { items });
      bulkMs += performance.now() - started;
      tailMs += await settle();
      if (r.status !== 200) throw new Error(`bulk → ${r.status} ${JSON.stringify(r.json).slice(0, 500)}`);
      const results = (r.json.results ?? r.json.data ?? r.json.items) as
        { error?: unknown; _id?: string }[] | undefined;
      const bad = results?.filter((x) => x.error).length ?? 0;
      if (bad > 0 && bulkErrors === 0)
        say(`bulk item error: ${JSON.stringify(results?.find((x) => x.error)).slice(0, 500)}`);
      bulkErrors += bad;
      bulkRows += 1_000 - bad;
      const ids = (results ?? []).flatMap((x) => (x._id ? [`'${x._id}'`] : []));
      if (ids.length === 0) return;
      await pg.query(
        `COPY (SELECT ${columnList} FROM catalog.products WHERE "_id" IN (${ids.join(',')})) TO '${batchFile}'`,
      );
      const copyStarted = performance.now();
      await pg.query(`COPY catalog.bench_scratch (${columnList}) FROM '${batchFile}'`);
      copyMs += performance.now() - copyStarted;
    });
    await pg.query(`DROP TABLE catalog.bench_scratch`);
    rmSync(batchFile, { force: true });
    const bulkRate = bulkRows / (bulkMs / 1000);
    say(
      `bulk upsert: ${bulkRows} rows (${bulkErrors} item errors) in ${bulkMs.toFixed(0)} ms = ${bulkRate.toFixed(0)} rows/s`,
    );
    if (bulkRows === 0) throw new Error('no product was stored by the bulk upsert');
    const copyRate = bulkRows / (copyMs / 1000);
    const bulkRatio = bulkRate / copyRate;
    say(
      `pg COPY of the same rows: ${copyMs.toFixed(0)} ms = ${copyRate.toFixed(0)} rows/s; ratio ${bulkRatio.toFixed(3)}`,
    );
    const withTailRatio = bulkRows / ((bulkMs + tailMs) / 1000) / copyRate;
    say(
      `events published and fanned out ${(tailMs / SIZES.bulkCalls).toFixed(0)} ms after each call on average; ratio counting that too ${withTailRatio.toFixed(3)}`,
    );

    // 1'. The big catalog: clones of the stored products, COPYed in chunks with the secondary indexes dropped and rebuilt.
    t = performance.now();
    const toAdd = Math.max(0, PRODUCTS - bulkRows);
    const { rows: idx } = await pg.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'catalog' AND tablename = 'products' AND indexname NOT LIKE 'PK_%'`,
    );
    for (const i of idx as { indexname: string }[]) await pg.query(`DROP INDEX catalog."${i.indexname}"`);
    // The products the bulk upsert stored get their catalogs here too (the same rule by number as
    // the clones below), in the column and in their stored rendering alike.
    await pg.query(
      `UPDATE catalog.products p SET catalogs = c.cats, rendered = (p.rendered::jsonb || jsonb_build_object('catalogs', c.cats))::text
         FROM (SELECT "_id", ${catalogsSql(catalogs, catalogHashSql(`substr(code, 5)::bigint`))} AS cats
                 FROM catalog.products WHERE code ~ '^SKU-[0-9]+$') c
        WHERE p."_id" = c."_id"`,
    );
    const words = (a: string[]) => `ARRAY[${a.map((w) => `'${w}'`).join(',')}]`;
    const chunk = 100_000;
    for (let from = 0; from < toAdd && performance.now() - t < LOAD_SECONDS * 1000; from += chunk) {
      const n = Math.min(chunk, toAdd - from);
      const f = file(`gen-${from}`);
      await pg.query(
        `COPY (
           WITH t AS (SELECT p.*, row_number() OVER (ORDER BY code) - 1 AS k FROM catalog.products p WHERE code LIKE 'SKU-%' ORDER BY code LIMIT ${bulkRows}),
                g AS (SELECT ${bulkRows} + ${from} + s AS n FROM generate_series(0, ${n - 1}) s),
                x AS (SELECT g.n, t.*, jsonb_build_object(
                        'en', (${words(ADJ)})[1 + g.n % ${ADJ.length}] || ' ' || (${words(NOUNS)})[1 + (g.n / ${ADJ.length}) % ${NOUNS.length}] || ' ' || g.n,
                        'pt', (${words(PT)})[1 + g.n % ${PT.length}] || ' ' || g.n) AS nm,
                        ${catalogsSql(catalogs, 'hc.h')} AS cats
                        FROM g JOIN t ON t.k = g.n % ${bulkRows} CROSS JOIN LATERAL (SELECT ${catalogHashSql('g.n')} AS h) hc)
           SELECT substr(md5(x.n::text || 'bench'), 1, 24), 'SKU-' || x.n || E'\\n' || (x.nm->>'en') || E'\\n' || (x.nm->>'pt'),
                  x.version, now() - x.n * interval '1 second', now() - x.n * interval '1 second', x.created_by_name, x.deleted, x.deleted_at, x.deleted_by,
                  x.family_id, x.brand_id, x.fulfilled, x.categories, x.category_trees, x.product_id, x.cats, x.attribute_groups,
                  x.attributes_schema_snapshot, x.attributes_options_snapshot, 'SKU-' || x.n, x.nm, x.description, x.image, x.images,
                  x.attributes, x.enabled, x.tags, x.type, x.product_approval, x.last_approval_at, x.published, x.last_publishment_id,
                  x.last_published_at, x.publishments, x.completeness, x.completeness_min,
                  -- the clone's rendering as the app would have stored it (its own id, code, name, catalogs and dates)
                  (x.rendered::jsonb || jsonb_build_object('_id', substr(md5(x.n::text || 'bench'), 1, 24), 'code', 'SKU-' || x.n, 'name', x.nm, 'catalogs', x.cats,
                     'created_at', to_char((now() - x.n * interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                     'updated_at', to_char((now() - x.n * interval '1 second') AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))::text
             FROM x
         ) TO '${f}'`,
      );
      await pg.query(`COPY catalog.products FROM '${f}'`);
      rmSync(f, { force: true });
      say(`  loaded ${bulkRows + from + n} products (${((performance.now() - t) / 1000).toFixed(0)} s)`);
    }
    await pg.query(`SET maintenance_work_mem = '1GB'`);
    for (const i of idx as { indexdef: string }[]) await pg.query(i.indexdef);
    await pg.query(`VACUUM ANALYZE catalog.products`);
    const loadMs = performance.now() - t;
    const total = Number(
      ((await pg.query(`SELECT count(*) AS n FROM catalog.products WHERE deleted = false`)).rows[0] as { n: string }).n,
    );
    say(`big catalog: ${total} products (${toAdd} by COPY + index rebuild in ${(loadMs / 1000).toFixed(0)} s)`);

    // 2b. GET /products/{id}: the gateway vs. the one-process baseline, same ids and concurrency.
    const ids = (
      (await pg.query(`SELECT "_id" FROM catalog.products ORDER BY random() LIMIT 2000`)).rows as { _id: string }[]
    ).map((r) => r._id);
    // The servers are measured in rotating rounds, so a load change on the shared machine during
    // the run hits them alike instead of whichever ran last.
    const target = (url: (id: string) => string, headers: Record<string, string>) => {
      const t = {
        done: 0,
        ms: 0,
        errors: 0,
        hit: async (i: number) => {
          const r = await request(url(ids[i % ids.length]), { headers, dispatcher: agent });
          await r.body.text();
          if (r.statusCode !== 200) t.errors += 1;
        },
      };
      return t;
    };
    const compare = async (targets: ReturnType<typeof target>[]): Promise<void> => {
      for (const t of targets) await pool(500, 5_000, CONCURRENCY, t.hit);
      const rounds = 6;
      for (let k = 0; k < rounds; k++) {
        // Each round starts with another server, so none is always measured first or last.
        for (const t of targets.map((_, i) => targets[(i + k) % targets.length])) {
          const r = await pool(Number.MAX_SAFE_INTEGER, (SIZES.getSeconds * 1000) / rounds, CONCURRENCY, t.hit);
          t.done += r.done;
          t.ms += r.elapsed;
        }
      }
    };
    const startBaseline = async (
      mode: 'columns' | 'rendered',
    ): Promise<{ port: number; child: ReturnType<typeof spawn> }> => {
      const child = spawn(
        process.execPath,
        ['-r', require.resolve('@swc-node/register'), join(__dirname, 'catalog-baseline.child.ts')],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            DATABASE_URL: db.url,
            SWC_NODE_PROJECT: join(ROOT, 'tsconfig.json'),
            BASELINE_MODE: mode,
          },
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      baselines.push(child);
      const port = await new Promise<number>((resolve, reject) => {
        createInterface({ input: child.stdout! }).once('line', (line) =>
          resolve((JSON.parse(line) as { port: number }).port),
        );
        child.once('exit', (code) => reject(new Error(`baseline server exited (${code})`)));
      });
      return { port, child };
    };
    const columnsServer = await startBaseline('columns');
    const renderedServer = await startBaseline('rendered');
    const b1 = target((id) => `http://127.0.0.1:${columnsServer.port}/api/v1/products/${id}`, {});
    const b2 = target((id) => `http://127.0.0.1:${renderedServer.port}/api/v1/products/${id}`, {});
    const g1 = target((id) => `${base}/api/v1/products/${id}`, { authorization: auth.authorization });
    await compare([b1, b2, g1]);
    const base1 = { rate: b1.done / (b1.ms / 1000), errors: b1.errors };
    const base2 = { rate: b2.done / (b2.ms / 1000), errors: b2.errors };
    const gw = { rate: g1.done / (g1.ms / 1000), errors: g1.errors };
    for (const c of baselines.splice(0)) c.kill('SIGTERM');
    const getRatio = gw.rate / base1.rate;
    const getRatioRendered = gw.rate / base2.rate;
    say(
      `GET by id: gateway ${gw.rate.toFixed(0)} req/s (${gw.errors} non-200), baseline rendering the columns ${base1.rate.toFixed(0)} req/s (${base1.errors} non-200): ratio ${getRatio.toFixed(3)}; baseline sending the stored rendering ${base2.rate.toFixed(0)} req/s (${base2.errors} non-200): ratio ${getRatioRendered.toFixed(3)}`,
    );

    // 2c. _search + one filter + sort, limit 25, with total. A warm-up of 60 queries first, with
    // (noun, brand) pairs that the measured 200 do not use (the pairs repeat every 300), so the
    // measured ones find warm connections and plans but not their own rows cached.
    const searchQuery = (i: number) =>
      `_search=${encodeURIComponent(NOUNS[i % NOUNS.length])}&brand_id=${brands[(i * 7) % brands.length]}&sort=-created_at&limit=25`;
    for (let i = SIZES.searches; i < SIZES.searches + 60; i++) await call('GET', `/api/v1/products?${searchQuery(i)}`);
    const lat: number[] = [];
    let searchErrors = 0;
    let totals = 0;
    await pool(SIZES.searches, SIZES.searchSeconds * 1000, 1, async (i) => {
      const q = searchQuery(i);
      const s = performance.now();
      const r = await call('GET', `/api/v1/products?${q}`);
      lat.push(performance.now() - s);
      if (r.status !== 200) {
        if (searchErrors === 0) say(`search → ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
        searchErrors += 1;
      } else totals += Number(r.json.total ?? 0);
    });
    lat.sort((a, b) => a - b);
    const search = {
      p50: percentile(lat, 50),
      p95: percentile(lat, 95),
      n: lat.length,
      meanTotal: totals / Math.max(1, lat.length - searchErrors),
      errors: searchErrors,
    };
    say(
      `search: p50 ${search.p50.toFixed(1)} ms, p95 ${search.p95.toFixed(1)} ms over ${search.n} (mean total ${search.meanTotal.toFixed(0)}, ${search.errors} errors)`,
    );

    // 2d. Access: the same search sequence as the restricted user and as the full-access user
    // (both keys bound to a user, so both requests read the user's groups from the workflow app),
    // one query each in turn, the first of the pair alternating (the second finds the pair's rows
    // cached), after the same warm-up.
    const asUser = async (key: string, path: string) => {
      const s = performance.now();
      const r = await call('GET', path, undefined, key);
      return { ms: performance.now() - s, status: r.status, json: r.json };
    };
    for (let i = SIZES.searches; i < SIZES.searches + 60; i++)
      for (const key of [keys.restricted, keys.full]) await asUser(key, `/api/v1/products?${searchQuery(i)}`);
    const sides = {
      restricted: { key: keys.restricted, lat: [] as number[], errors: 0, totals: [] as number[] },
      full: { key: keys.full, lat: [] as number[], errors: 0, totals: [] as number[] },
    };
    let wider = 0; // pairs in which the restricted user got a larger total than the full-access user
    await pool(SIZES.searches, SIZES.searchSeconds * 1000, 1, async (i) => {
      const order = i % 2 === 0 ? (['restricted', 'full'] as const) : (['full', 'restricted'] as const);
      const got: Partial<Record<keyof typeof sides, number>> = {};
      for (const who of order) {
        const side = sides[who];
        const r = await asUser(side.key, `/api/v1/products?${searchQuery(i)}`);
        side.lat.push(r.ms);
        if (r.status !== 200) {
          if (side.errors === 0) say(`search as the ${who} user → ${r.status} ${JSON.stringify(r.json).slice(0, 300)}`);
          side.errors += 1;
        } else side.totals.push((got[who] = Number(r.json.total ?? 0)));
      }
      if (got.restricted !== undefined && got.full !== undefined && got.restricted > got.full) wider += 1;
    });
    // How many products each sees: the total of a list with no filter.
    const seen = async (key: string): Promise<number> => {
      const r = await asUser(key, '/api/v1/products?limit=1');
      if (r.status !== 200) throw new Error(`GET /api/v1/products?limit=1 → ${r.status} ${JSON.stringify(r.json)}`);
      return Number(r.json.total);
    };
    const summary = (side: (typeof sides)['full'], sees: number) => {
      const lat = [...side.lat].sort((a, b) => a - b);
      const sum = side.totals.reduce((a, b) => a + b, 0);
      return {
        p50: percentile(lat, 50),
        p95: percentile(lat, 95),
        n: lat.length,
        meanTotal: sum / Math.max(1, side.totals.length),
        errors: side.errors,
        sees,
      };
    };
    const restricted = summary(sides.restricted, await seen(keys.restricted));
    const full = summary(sides.full, await seen(keys.full));
    const access = {
      restricted,
      full,
      ratio: restricted.p95 / full.p95,
      // The restriction applied: fewer products in all, fewer found by the searches, never more in one.
      narrower:
        restricted.sees < full.sees &&
        restricted.meanTotal < full.meanTotal &&
        wider === 0 &&
        restricted.errors + full.errors === 0,
    };
    for (const [who, r] of Object.entries({ restricted, full }))
      say(
        `search as the ${who} user: p50 ${r.p50.toFixed(1)} ms, p95 ${r.p95.toFixed(1)} ms over ${r.n} (mean total ${r.meanTotal.toFixed(0)}, ${r.errors} errors); sees ${r.sees} products`,
      );
    say(
      `restricted p95 ÷ full p95 ${access.ratio.toFixed(3)}; restriction applied: ${access.narrower ? 'yes' : `NO (${wider} searches found more as the restricted user)`}`,
    );

    const section = renderCatalog({
      machine: { ...machine, postgres },
      products: total,
      bulkRows,
      bulkErrors,
      bulkRate,
      copyRate,
      bulkRatio,
      tailMs,
      withTailRatio,
      gw,
      base1,
      base2,
      getRatio,
      getRatioRendered,
      search,
      access,
      loadMs,
      metaMs,
      categories: categories.length,
    });
    const docPath = join(ROOT, 'docs', 'benchmarks.md');
    if (opts.write) {
      writeFileSync(
        docPath,
        withCatalogSection(existsSync(docPath) ? readFileSync(docPath, 'utf8') : '# Benchmarks\n', section),
      );
      say('written to docs/benchmarks.md (Catalog section)');
    } else say(section);
    const ok =
      bulkRatio >= 0.5 &&
      getRatio >= 0.5 &&
      search.p95 <= 50 &&
      access.narrower &&
      access.ratio <= 1.2 &&
      access.restricted.p95 <= 50 &&
      total >= 1_000_000;
    say(ok ? 'targets met' : 'targets NOT met');
    process.exitCode = ok ? 0 : 1;
  } catch (err) {
    say(`catalog bench failed: ${(err as Error).stack ?? String(err)}\n${logs.slice(-40).join('\n')}`);
    process.exitCode = 1;
  } finally {
    for (const c of baselines) c.kill('SIGTERM');
    await agent.close().catch(() => undefined);
    await pg.end().catch(() => undefined);
    await platform?.stop();
    for (const f of copyFiles) rmSync(f, { force: true });
    await stream.destroy();
    if (keepDb) say(`database kept (--keep-db): ${db.url} — drop it with DROP DATABASE "${db.name}"`);
    else await db.drop();
  }
}

interface CatalogReport {
  machine: { cores: number; cpu: string; memory: string; node: string; postgres: string };
  products: number;
  bulkRows: number;
  bulkErrors: number;
  bulkRate: number;
  copyRate: number;
  bulkRatio: number;
  tailMs: number;
  withTailRatio: number;
  gw: { rate: number; errors: number };
  base1: { rate: number; errors: number };
  base2: { rate: number; errors: number };
  getRatio: number;
  getRatioRendered: number;
  search: { p50: number; p95: number; n: number; meanTotal: number; errors: number };
  access: {
    restricted: { p50: number; p95: number; n: number; meanTotal: number; errors: number; sees: number };
    full: { p50: number; p95: number; n: number; meanTotal: number; errors: number; sees: number };
    ratio: number;
    narrower: boolean;
  };
  loadMs: number;
  metaMs: number;
  categories: number;
}

function renderCatalog(r: CatalogReport): string {
  const mark = (ok: boolean) => (ok ? 'met' : '**not met**');
  const small = r.products < 1_000_000;
  return `## Catalog

Produced by \`npm run bench -- catalog\` (\`tools/bench/catalog.ts\`) on ${new Date().toISOString().slice(0, 10)}: ${r.machine.cores} × ${r.machine.cpu},
${r.machine.memory}, PostgreSQL ${r.machine.postgres} (local, default settings), Node ${r.machine.node}; the whole platform
(gateway, every app, NATS, Postgres) and the bench client share these cores.
${small ? `\n**Run at ${r.products.toLocaleString('en')} products, not 1,000,000** (\`BENCH_PRODUCTS\` and the \`BENCH_LOAD_SECONDS\` load budget; the default is 1,000,000): the search targets are stated for 1M and are not shown met by this run.\n` : ''}
Catalog: ${SIZES.groups} attribute groups, ${SIZES.attributes} attributes (all 14 types in turn, select and multiselect with ${OPTIONS.length} options each, each attribute in one group, every tenth required),
${SIZES.brands} brands, ${SIZES.families} families, one category tree of ${r.categories} categories (two levels), all created through the API
(${(r.metaMs / 1000).toFixed(1)} s). Every product has two attribute groups (~30 typed values), a brand, a family, a category and a tag,
and one or two of ${SIZES.catalogs} catalogs (also created through the API; a third of the products are in two).

| measure | result | target | |
|---|---|---|---|
| bulk upsert through the gateway (POST /api/v1/products/bulk, 1,000 items a call, validation and events on) | ${r.bulkRate.toFixed(0)} rows/s (${r.bulkRows} rows, ${r.bulkErrors} item errors) | | |
| pg COPY of the same rows into a scratch table with the same indexes | ${r.copyRate.toFixed(0)} rows/s | baseline | |
| bulk upsert ÷ COPY | **${r.bulkRatio.toFixed(3)}** | ≥ 0.5 | ${mark(r.bulkRatio >= 0.5)} |
| after each call, until its events were published (relay → JetStream) and fanned out (webhooks) | ${(r.tailMs / SIZES.bulkCalls).toFixed(0)} ms a call; bulk ÷ COPY counting it: ${r.withTailRatio.toFixed(3)} | | |
| GET /api/v1/products/{id} through the gateway (${CONCURRENCY} in flight, ${SIZES.getSeconds} s) | ${r.gw.rate.toFixed(0)} req/s (${r.gw.errors} non-200) | | |
| one-process node:http + pg server rendering the row's columns (\`SELECT *\`, the catalog's view function), same ids and concurrency | ${r.base1.rate.toFixed(0)} req/s (${r.base1.errors} non-200) | baseline | |
| gateway ÷ that baseline | **${r.getRatio.toFixed(3)}** | ≥ 0.5 | ${mark(r.getRatio >= 0.5)} |
| one-process node:http + pg server sending the stored rendering (\`SELECT rendered\`), same ids and concurrency | ${r.base2.rate.toFixed(0)} req/s (${r.base2.errors} non-200) | stricter baseline | |
| gateway ÷ the stricter baseline | **${r.getRatioRendered.toFixed(3)}** | (≥ 0.5) | ${r.getRatioRendered >= 0.5 ? 'met' : 'not met'} |
| \`_search\` + \`brand_id\` filter + \`sort=-created_at\`, limit 25, with total, at ${r.products.toLocaleString('en')} products: p50 | **${r.search.p50.toFixed(1)} ms** | | |
| same, p95 (${r.search.n} sequential queries, mean total ${r.search.meanTotal.toFixed(0)}, ${r.search.errors} errors) | **${r.search.p95.toFixed(1)} ms** | ≤ 50 ms at 1M | ${small ? 'not measured at 1M' : mark(r.search.p95 <= 50)} |
| same search as a user with full product access (key bound to a user of a \`has_full_product_access\` group; sees ${r.access.full.sees.toLocaleString('en')} products): p50 / p95 (${r.access.full.n} queries, mean total ${r.access.full.meanTotal.toFixed(0)}, ${r.access.full.errors} errors) | ${r.access.full.p50.toFixed(1)} ms / ${r.access.full.p95.toFixed(1)} ms | baseline | |
| same search as a user restricted by users groups (their group in the \`user_groups\` of ${SIZES.seenCatalogs} of the ${SIZES.catalogs} catalogs; sees ${r.access.restricted.sees.toLocaleString('en')} products, ${((100 * r.access.restricted.sees) / Math.max(1, r.access.full.sees)).toFixed(1)} %): p50 / p95 (${r.access.restricted.n} queries, mean total ${r.access.restricted.meanTotal.toFixed(0)}, ${r.access.restricted.errors} errors) | ${r.access.restricted.p50.toFixed(1)} ms / **${r.access.restricted.p95.toFixed(1)} ms** | ≤ 50 ms at 1M | ${small ? 'not measured at 1M' : mark(r.access.restricted.p95 <= 50)} |
| restricted p95 ÷ full-access p95 | **${r.access.ratio.toFixed(3)}** | ≤ 1.2 | ${small ? 'not measured at 1M' : mark(r.access.ratio <= 1.2)} |
| the restriction applied (fewer products seen, smaller search totals on average, none larger) | ${r.access.narrower ? 'yes' : '**no**'} | yes | ${mark(r.access.narrower)} |

How it is measured:

- **Bulk vs COPY**: after each bulk call, the rows it stored are COPYed (server-side file) into a
  table created \`LIKE catalog.products INCLUDING ALL\` (same columns and indexes, trigram GIN
  included), so each pair runs under the same machine load; the ratio divides the summed times.
  Before each timed step the run waits until the outbox is published and no other backend of the
  database is busy, so neither side carries the other's leftovers; the event publication that
  follows each call (asynchronous by design: the events are in the outbox when the call returns)
  is reported on its own line.
- **Big catalog**: the products the app stored are cloned (snapshots, completeness kept as the app
  derived them) with new ids, codes, names (English words plus Portuguese words with accents) and
  \`search_text\` built as the app builds it (code and every language of the name), written with
  COPY in chunks of 100,000 with the secondary indexes dropped and rebuilt afterwards, then
  \`VACUUM ANALYZE\` (${(r.loadMs / 1000).toFixed(0)} s).
- **GET by id**: an undici keep-alive loop, ${CONCURRENCY} requests in flight, 2,000 random ids, warmed up first, the two servers
  measured in six alternating rounds (${SIZES.getSeconds} s each in all) so that load changes on the shared machine hit both alike;
  the baselines (\`tools/bench/catalog-baseline.child.ts\`) run in their own processes: one reads the
  row and renders it with the catalog's view function (what a plain server over this table does),
  the stricter one sends the product's stored rendering (\`rendered\`) as the catalog does.
- **Search**: one request at a time, after 60 warm-up queries on other (noun, brand) pairs; the term is one of ${NOUNS.length} English nouns, the filter one brand.
- **Access** (docs/decisions/access.md): two users groups created through the API, one named by the
  \`user_groups\` of ${SIZES.seenCatalogs} of the ${SIZES.catalogs} catalogs, one with full product access, and a
  \`products:read\` key bound to a user of each; every product's \`catalogs\` (column and stored rendering) names one
  or two catalogs chosen by a hash of its number, with no users groups of their own. The same search sequence
  runs for both users after the same warm-up, one query each in turn, the first of each pair alternating
  (the second finds the pair's rows cached), so load changes hit both alike. Both requests read the user's
  groups from the workflow app; only the restricted user's query carries the catalogs condition. The
  products each sees are the total of an unfiltered list. In the plan (EXPLAIN ANALYZE at 1M) that
  condition filters the few hundred rows the search index (trigrams with \`brand_id\`) hands back, rows
  read anyway; its selectivity is estimated from the column's statistics, so no catalogs index is
  needed (a GIN \`jsonb_path_ops\` one was tried and not chosen, for \`@> ANY\` nor for an OR of \`@>\`).

Reading the misses. **GET**: the gateway path is two processes and a gRPC hop — HTTP parsing,
the key and rate-limit checks, gRPC framing on both sides — around the same one-row read the
baselines do; on two cores shared by every server, Postgres and the client, its CPU per request
bounds the ratio (about 1.4 ms against about 0.4 ms for the stricter baseline and 0.55 ms for the
other, read from /proc CPU counters during the GET runs). **Bulk**: a call writes each product
once by COPY like the baseline, plus its event (the product's view again, ~7 KB) into the outbox,
plus validation, views and the hop; the event publication that follows (relay → JetStream →
fan-out) runs after the call and is shown on its own line.
`;
}
