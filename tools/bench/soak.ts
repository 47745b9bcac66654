// `npm run bench -- soak`: the soak benchmark, written to the "## Soak" section of docs/benchmarks.md.
// The whole platform on a fresh database and stream, a webhook receiver (its own process) subscribed
// to every collection, a channel receiver (its own process), the demo catalog (tools/demo: 14
// attribute types, brands, a category tree, families, 229 products, kits, a workflow, a workflow
// approval, 40 orders), then a steady mixed load at a fixed rate for N minutes, driven over HTTP as
// users would: reads (by id, filtered lists, `_search`), product creations, replaces and PATCHes
// with If-Match, bulk upserts, orders created and moved along their workflow, product approvals
// created and decided step by step, publications to the channel receiver, and now and then a small
// import (upload, map, start, wait) and an export (start, wait, download). Every request's answer
// must be 2xx (no race is made on purpose: a record is written by one operation at a time).
// Every 30 s (10 s for runs under 10 minutes) it samples each app's RSS and open files (/proc), its
// Postgres connections (pg_stat_activity by application_name) and NATS connections (its sockets to
// the NATS port, /proc/net/tcp), the requests, errors and latencies of the window, the outboxes'
// backlog and the deliveries pending. At the end it waits for the platform to settle and checks
// that every event since the webhooks were set reached the receiver.
// Flags: --minutes N (default 30), --rate N (operations started per second, default 30),
// --no-write (print only). Ctrl-C ends the load early and reports without writing.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { format, resolveConfig } from 'prettier';
import { Agent, FormData, fetch } from 'undici';
import { COLLECTIONS } from '@pim/resources';
import { createTestDatabase, createTestStream } from '@pim/testing';
import { newToken } from '../../apps/gateway/src/auth/api-key.token';
import { DemoApi } from '../demo/api';
import { KITS, USERS, WORKFLOWS, WORKFLOW_CODE, WORKFLOW_APPROVALS } from '../demo/data';
import { loadDemo } from '../demo/loader';
import type { RunningPlatform } from '../start';
import { freePort } from '../start/ports';
import { appPid, memoryOf, openFds, rssParts, tcpConnections } from './proc';
import { machineOf, percentile, startBenchPlatform, startReceiver, withSection, type LocalReceiver } from './shared';

type Json = Record<string, unknown>;

const ROOT = join(__dirname, '..', '..');
const say = (line: string) => process.stdout.write(`${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const APPS = ['gateway', 'catalog', 'workflow', 'orders', 'io-jobs', 'publisher', 'webhooks'] as const;
type AppName = (typeof APPS)[number];

/** What a request of the load was for; latencies are reported per kind. */
const KINDS = ['get', 'list', 'search', 'product', 'bulk', 'order', 'approval', 'publish', 'job'] as const;
type Kind = (typeof KINDS)[number];

/** Operations in flight at most; past it a due operation is skipped (and counted): the platform is not keeping up. */
const MAX_IN_FLIGHT = 64;
/** A request that has not answered in this long is an error. */
const REQUEST_TIMEOUT_MS = 30_000;
/** RSS in the last third may exceed its level after warm-up by this much (see the report's reasoning). */
const RSS_TOLERANCE = 0.1;
/** How long the platform may take to settle after the load (outboxes, deliveries, jobs). */
const SETTLE_LIMIT_MS = 300_000;
/** Bench products the bulk upserts cycle through, and items per bulk call. */
const BULK_POOL = 300;
const BULK_ITEMS = 20;
/** Rows of each small import, and the distinct codes the imports cycle through. */
const IMPORT_ROWS = 20;
const IMPORT_POOL = 200;
/** Products of the demo reserved for publications (their outcome is written on them). */
const PUBLISH_POOL = 30;
const SEARCH_WORDS = ['caneca', 'kit', 'mesa', 'toalha', 'cadeira', 'copo', 'luminária', 'sofá', 'panela', 'soak'];

interface SoakOptions {
  minutes: number;
  /** Operations started per second. */
  rate: number;
  write: boolean;
}

/** --minutes N, --rate N, --no-write. */
function soakOptions(argv: string[]): SoakOptions {
  const value = (flag: string, fallback: number) => {
    const i = argv.indexOf(flag);
    if (i < 0) return fallback;
    const n = Number(argv[i + 1]);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${flag} needs a positive number, not '${argv[i + 1]}'`);
    return n;
  };
  return { minutes: value('--minutes', 30), rate: value('--rate', 30), write: !argv.includes('--no-write') };
}

/** A small deterministic PRNG (mulberry32), so two runs make the same choices. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// ---------------------------------------------------------------------------------------------
// What the load did: latencies by kind (per window and in all), errors once each.

interface KindStats {
  n: number;
  p50: number;
  p99: number;
  max: number;
}

function statsOf(ms: number[]): KindStats {
  const s = [...ms].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN };
}

/** One distinct error: where, what came back, how often. */
interface ErrorEntry {
  kind: Kind | 'async';
  what: string;
  status: number;
  body: string;
  count: number;
  firstAt: number;
}

/** What the load did: request counts, latencies by kind (per sample window and in all), each distinct error once. */
class Recorder {
  requests = 0;
  errors = 0;
  skipped = 0;
  readonly all = new Map<Kind, number[]>();
  readonly distinct = new Map<string, ErrorEntry>();
  private window = new Map<Kind, number[]>();
  private windowErrors = 0;

  constructor(private readonly started: number) {}

  ok(kind: Kind, ms: number): void {
    this.requests += 1;
    for (const m of [this.window, this.all]) {
      const list = m.get(kind) ?? [];
      list.push(ms);
      m.set(kind, list);
    }
  }

  /** An unintended answer (or none, status 0), or an asynchronous outcome that went wrong ('async'). */
  fail(kind: Kind | 'async', what: string, status: number, body: string): void {
    if (kind !== 'async') this.requests += 1;
    this.errors += 1;
    this.windowErrors += 1;
    // Ids and numbers in paths and messages vary; the error is the same.
    const shape = (s: string) =>
      s
        .replace(/"request_id":"[^"]*"/g, '')
        .replace(/[0-9a-f]{24}/g, '{id}')
        .replace(/\d+/g, 'N');
    const key = `${kind} ${shape(what)} ${status} ${shape(body.slice(0, 300))}`;
    const seen = this.distinct.get(key);
    if (seen) {
      seen.count += 1;
      return;
    }
    const entry = { kind, what, status, body: body.slice(0, 2_000), count: 1, firstAt: Date.now() - this.started };
    this.distinct.set(key, entry);
    say(
      `  ERROR (${kind}) ${what} → ${status || 'no answer'} at ${(entry.firstAt / 1000).toFixed(0)} s: ${entry.body}`,
    );
  }

  /** The window since the last call: requests, errors, latencies by kind. */
  takeWindow(): { requests: number; errors: number; byKind: Partial<Record<Kind, KindStats>>; all: KindStats } {
    const byKind: Partial<Record<Kind, KindStats>> = {};
    const every: number[] = [];
    for (const [k, ms] of this.window) {
      byKind[k] = statsOf(ms);
      every.push(...ms);
    }
    const out = { requests: every.length, errors: this.windowErrors, byKind, all: statsOf(every) };
    this.window = new Map();
    this.windowErrors = 0;
    return out;
  }
}

// ---------------------------------------------------------------------------------------------
// The HTTP client of the load.

/** A 2xx answer: its JSON body (when it has one), ETag and size. */
interface Answer {
  status: number;
  json: Json;
  etag: string | null;
  bytes: number;
}

/** The load's HTTP client: the gateway over one keep-alive agent, every answer timed and checked. */
class SoakApi {
  constructor(
    private readonly base: string,
    private readonly adminKey: string,
    private readonly agent: Agent,
    private readonly rec: Recorder,
  ) {}

  /** One request; a non-2xx answer (or none) is recorded as an error and resolves undefined. */
  async call(
    kind: Kind,
    method: string,
    path: string,
    opts: { body?: unknown; form?: FormData; key?: string; headers?: Record<string, string> } = {},
  ): Promise<Answer | undefined> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${opts.key ?? this.adminKey}`,
      ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...opts.headers,
    };
    const started = performance.now();
    let status = 0;
    let text = '';
    try {
      const res = await fetch(`${this.base}${path}`, {
        method,
        headers,
        body: opts.form ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body)),
        dispatcher: this.agent,
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      status = res.status;
      const buf = Buffer.from(await res.arrayBuffer());
      const type = res.headers.get('content-type') ?? '';
      text = type.includes('json') ? buf.toString('utf8') : '';
      if (status >= 200 && status < 300) {
        this.rec.ok(kind, performance.now() - started);
        return {
          status,
          json: text ? (JSON.parse(text) as Json) : {},
          etag: res.headers.get('etag'),
          bytes: buf.length,
        };
      }
      if (!text) text = buf.toString('utf8', 0, Math.min(buf.length, 2_000));
    } catch (err) {
      text = `${(err as Error).name}: ${(err as Error).message}${(err as { cause?: Error }).cause ? ` (${(err as { cause: Error }).cause.message})` : ''}`;
    }
    this.rec.fail(kind, `${method} ${path.split('?')[0]}`, status, text);
    return undefined;
  }
}

// ---------------------------------------------------------------------------------------------
// What the load knows of the platform's data, and which records an operation holds.

interface Kit {
  id: string;
  /** The kit's parts (product ids) as the demo made them; a proposal changes their quantities. */
  parts: string[];
  /** The open approval of this kit and the step it waits on. */
  open?: { id: string; step: number };
}

interface OpenOrder {
  id: string;
  status: string;
}

interface World {
  /** Every product id the load may read. */
  products: string[];
  /** Demo products the load PATCHes (not kits, not the publication pool). */
  editable: string[];
  /** Products the load created (POST), with the input it holds for its replaces. */
  own: { id: string; input: Json }[];
  kits: Kit[];
  publishable: string[];
  sellable: { id: string; code: string; name: string }[];
  brands: string[];
  categories: string[];
  tree: string;
  families: string[];
  attributes: string[];
  orders: string[];
  open: OpenOrder[];
  webhooks: string[];
  channelId: string;
  keys: { ana: string; carla: string };
  /** Records an operation is writing right now (one writer per record: no race on purpose). */
  busy: Set<string>;
  n: number;
}

/** The statuses each status of the demo workflow moves to (none: final). */
const MOVES: Record<string, string[]> = Object.fromEntries(
  WORKFLOWS[0].steps.flatMap((s) => s.status).map((s) => [s.code, s.outcome ? [] : (s.moves_to ?? [])]),
);
const FIRST_STATUS = WORKFLOWS[0].steps[0].status[0].code;

/** Counts of what the load did besides requests. */
interface Done {
  approvalsApplied: number;
  approvalsRejected: number;
  /** Applied after the last approve answered (the catalog was unavailable at first). */
  appliedLater: number;
  ordersFinished: number;
  publications: string[];
  imports: number;
  exports: number;
  bulkItems: number;
}

/** The operations of the load, each a few requests on records no other operation holds. */
class Load {
  readonly done: Done = {
    approvalsApplied: 0,
    approvalsRejected: 0,
    appliedLater: 0,
    ordersFinished: 0,
    publications: [],
    imports: 0,
    exports: 0,
    bulkItems: 0,
  };
  /** Approvals whose last approve answered with the application still pending. */
  readonly pendingApplications: string[] = [];
  private bulkRound = 0;
  private importRound = 0;
  private exportRound = 0;

  constructor(
    private readonly api: SoakApi,
    private readonly w: World,
    private readonly rec: Recorder,
    private readonly rnd: () => number,
  ) {}

  private pick<T>(xs: T[]): T {
    return xs[Math.floor(this.rnd() * xs.length)];
  }

  /** A record of `xs` no operation holds, held until `fn` ends; without one, `fallback`. */
  private async holding<T>(
    xs: T[],
    idOf: (x: T) => string,
    fn: (x: T) => Promise<void>,
    fallback = () => this.getProduct(),
  ): Promise<void> {
    for (let tries = 0; tries < 5; tries++) {
      const x = this.pick(xs);
      if (x === undefined || this.w.busy.has(idOf(x))) continue;
      this.w.busy.add(idOf(x));
      try {
        return await fn(x);
      } finally {
        this.w.busy.delete(idOf(x));
      }
    }
    return fallback();
  }

  /** The weighted mix: weight, operation. */
  readonly mix: [number, () => Promise<void>][] = [
    [18, () => this.getProduct()],
    [6, () => this.getOther()],
    [10, () => this.listProducts()],
    [5, () => this.listOther()],
    [8, () => this.search()],
    [8, () => this.patchProduct()],
    [3, () => this.createProduct()],
    [3, () => this.replaceProduct()],
    [2, () => this.bulkUpsert()],
    [3, () => this.createOrder()],
    [7, () => this.moveOrder()],
    [4, () => this.stepApproval()],
    [2, () => this.publish()],
  ];
  private readonly totalWeight = this.mix.reduce((s, [w]) => s + w, 0);

  /** One operation of the mix, chosen by weight. */
  next(): () => Promise<void> {
    let r = this.rnd() * this.totalWeight;
    for (const [weight, op] of this.mix) {
      r -= weight;
      if (r < 0) return op;
    }
    return this.mix[0][1];
  }

  async getProduct(): Promise<void> {
    await this.api.call('get', 'GET', `/api/v1/products/${this.pick(this.w.products)}`);
  }

  async getOther(): Promise<void> {
    const w = this.w;
    const [path, ids] = this.pick<[string, string[]]>([
      ['orders', w.orders],
      ['brands', w.brands],
      ['categories', w.categories],
      ['families', w.families],
      ['attributes', w.attributes],
      ['webhooks', w.webhooks],
    ]);
    await this.api.call('get', 'GET', `/api/v1/${path}/${this.pick(ids)}`);
  }

  async listProducts(): Promise<void> {
    const w = this.w;
    const page = 1 + Math.floor(this.rnd() * 3);
    const q = this.pick([
      `brand_id=${this.pick(w.brands)}&sort=-updated_at`,
      `family_id=${this.pick(w.families)}`,
      `categories=${this.pick(w.categories)}&enabled=true`,
      `type=simple&enabled=true&sort=code&page=${page}`,
      `type=kit&expand=brand`,
      `updated_at_gte=${new Date(Date.now() - 60_000).toISOString()}&sort=-updated_at`,
    ]);
    await this.api.call('list', 'GET', `/api/v1/products?${q}&limit=25`);
  }

  async listOther(): Promise<void> {
    const w = this.w;
    const path = this.pick([
      `/api/v1/orders?channel.code=vitrine&sort=-placed_at&limit=25`,
      `/api/v1/orders?overdue=true&limit=25`,
      `/api/v1/orders?status_code=${this.pick(Object.keys(MOVES))}&limit=25`,
      `/api/v1/brands?limit=50`,
      `/api/v1/categories?category_tree_id=${w.tree}&limit=50`,
      `/api/v1/attributes?type=select&limit=50`,
      `/api/v1/product-approvals?status=pending&limit=25`,
      `/api/v1/publications?channel_id=${w.channelId}&sort=-created_at&limit=25`,
      `/api/v1/webhooks/${this.pick(w.webhooks)}/deliveries?limit=10`,
    ]);
    await this.api.call('list', 'GET', path);
  }

  async search(): Promise<void> {
    const word = encodeURIComponent(this.pick(SEARCH_WORDS));
    const path = this.pick(['products', 'products', 'products', 'orders', 'brands', 'categories']);
    await this.api.call('search', 'GET', `/api/v1/${path}?_search=${word}&limit=25`);
  }

  /** GET, then a merge PATCH with If-Match on the version read. */
  async patchProduct(): Promise<void> {
    await this.holding(this.w.editable, String, async (id) => {
      const got = await this.api.call('product', 'GET', `/api/v1/products/${id}`);
      if (!got) return;
      const n = ++this.w.n;
      const patch = this.rnd() < 0.5 ? { description: { en: `Soak edit ${n}` } } : { tags: ['soak', `n${n % 7}`] };
      await this.api.call('product', 'PATCH', `/api/v1/products/${id}`, {
        body: patch,
        headers: { 'if-match': got.etag ?? '' },
      });
    });
  }

  async createProduct(): Promise<void> {
    const w = this.w;
    const n = ++w.n;
    const input: Json = {
      code: `SOAK-N-${n}`,
      type: 'simple',
      name: { 'pt-BR': `Produto soak ${n}`, en: `Soak product ${n}` },
      description: { en: 'Made by the soak bench' },
      brand_id: this.pick(w.brands),
      categories: [this.pick(w.categories)],
      enabled: true,
      tags: ['soak'],
    };
    const made = await this.api.call('product', 'POST', '/api/v1/products', { body: input });
    if (!made) return;
    const id = made.json._id as string;
    w.own.push({ id, input });
    w.products.push(id);
  }

  /** A full replace (PUT) of a product the load created, with If-Match on the version read. */
  async replaceProduct(): Promise<void> {
    if (this.w.own.length === 0) return this.createProduct();
    await this.holding(
      this.w.own,
      (p) => p.id,
      async (p) => {
        const got = await this.api.call('product', 'GET', `/api/v1/products/${p.id}`);
        if (!got) return;
        const n = ++this.w.n;
        p.input = { ...p.input, name: { 'pt-BR': `Produto soak ${n}`, en: `Soak product ${n}` }, enabled: n % 5 !== 0 };
        await this.api.call('product', 'PUT', `/api/v1/products/${p.id}`, {
          body: p.input,
          headers: { 'if-match': got.etag ?? '' },
        });
      },
    );
  }

  /** POST /products/bulk of BULK_ITEMS bench products (created the first time round, updated after). */
  async bulkUpsert(): Promise<void> {
    const round = this.bulkRound++;
    const slices = BULK_POOL / BULK_ITEMS;
    const from = (round % slices) * BULK_ITEMS;
    const items = Array.from({ length: BULK_ITEMS }, (_, i) => bulkProduct(this.w, from + i, round));
    const r = await this.api.call('bulk', 'POST', '/api/v1/products/bulk', { body: { items } });
    if (!r) return;
    for (const item of r.json.data as { status: string; code?: string; _id?: string; error?: Json }[]) {
      if (item.status === 'failed')
        this.rec.fail('bulk', 'POST /api/v1/products/bulk (item)', 200, JSON.stringify(item.error));
      else if (item.status === 'created' && item._id) this.w.products.push(item._id);
    }
    this.done.bulkItems += items.length;
  }

  async createOrder(): Promise<void> {
    const w = this.w;
    const n = ++w.n;
    const items = Array.from({ length: 1 + (n % 3) }, () => {
      const p = this.pick(w.sellable);
      const quantity = 1 + Math.floor(this.rnd() * 3);
      const unit = 10 + (n % 90);
      return { sku: p.code, name: p.name, product_id: p.id, quantity, unit_price: unit, total: unit * quantity };
    });
    const total = items.reduce((s, x) => s + x.total, 0);
    const made = await this.api.call('order', 'POST', '/api/v1/orders', {
      body: {
        code: `SOAK-O-${n}`,
        external_code: `SOAK-EXT-${n}`,
        channel: { code: 'vitrine', name: 'Vitrine Marketplace' },
        customer: { name: `Cliente ${n % 50}`, email: `cliente${n % 50}@example.com` },
        workflow_code: WORKFLOW_CODE,
        items_count: items.reduce((s, x) => s + x.quantity, 0),
        order_items: items,
        totals: { subtotal: total, shipping: 0, discount: 0, total },
        sla: 60 + (n % 48) * 60,
      },
    });
    if (!made) return;
    const id = made.json._id as string;
    w.orders.push(id);
    w.open.push({ id, status: (made.json.status_code as string) ?? FIRST_STATUS });
  }

  /** Moves an open order to one of the statuses its status allows (rarely a cancellation). */
  async moveOrder(): Promise<void> {
    if (this.w.open.length === 0) return this.createOrder();
    await this.holding(
      this.w.open,
      (o) => o.id,
      async (o) => {
        const allowed = MOVES[o.status] ?? [];
        if (allowed.length === 0) return this.closeOrder(o);
        const calm = allowed.filter((s) => s !== 'cancelado' && s !== 'devolvido');
        const to = calm.length > 0 && this.rnd() > 0.1 ? this.pick(calm) : this.pick(allowed);
        const moved = await this.api.call('order', 'POST', `/api/v1/orders/${o.id}/status`, {
          body: { status_code: to, comment: 'soak' },
        });
        if (!moved) return;
        o.status = to;
        if ((MOVES[to] ?? []).length === 0) this.closeOrder(o);
      },
      () => this.createOrder(),
    );
  }

  private closeOrder(o: OpenOrder): void {
    const i = this.w.open.indexOf(o);
    if (i >= 0) this.w.open.splice(i, 1);
    this.done.ordersFinished += 1;
  }

  /**
   * A kit's approval, one step a call: without an open one, Ana proposes new quantities of its
   * parts; at step 1 Ana approves (or, one time in eight, rejects); at step 2 Carla approves, and
   * the change must be applied to the catalog.
   */
  async stepApproval(): Promise<void> {
    await this.holding(
      this.w.kits,
      (k) => k.id,
      async (kit) => {
        const { ana, carla } = this.w.keys;
        if (!kit.open) {
          const body = {
            product_id: kit.id,
            kit_products: kit.parts.map((id) => ({ id, quantity: 1 + Math.floor(this.rnd() * 3) })),
          };
          const made = await this.api.call('approval', 'POST', '/api/v1/product-approvals', { body, key: ana });
          if (made) kit.open = { id: made.json._id as string, step: 1 };
          return;
        }
        const { id, step } = kit.open;
        if (step === 1 && this.rnd() < 0.125) {
          const r = await this.api.call('approval', 'POST', `/api/v1/product-approvals/${id}/reject`, {
            body: { comment: 'soak: not now' },
            key: ana,
          });
          if (r) {
            kit.open = undefined;
            this.done.approvalsRejected += 1;
          }
          return;
        }
        const r = await this.api.call('approval', 'POST', `/api/v1/product-approvals/${id}/approve`, {
          body: { comment: 'soak' },
          key: step === 1 ? ana : carla,
        });
        if (!r) return;
        if (step === 1) {
          kit.open = { id, step: 2 };
          return;
        }
        kit.open = undefined;
        const application = (r.json.application as { status?: string } | undefined)?.status;
        // An application the catalog could not take now stays pending and is retried: checked at the end.
        if (r.json.status === 'approved' && application === 'pending') this.pendingApplications.push(id);
        else if (r.json.status !== 'approved' || application !== 'applied')
          this.rec.fail('async', `product approval ${id}`, 200, `approved but ${JSON.stringify(r.json.application)}`);
        else this.done.approvalsApplied += 1;
      },
    );
  }

  /** After the load: each approval left with its application pending must be applied within a minute. */
  async checkPendingApplications(): Promise<void> {
    for (const id of this.pendingApplications) {
      const limit = Date.now() + 60_000;
      for (;;) {
        const r = await this.api.call('approval', 'GET', `/api/v1/product-approvals/${id}`);
        if (!r) break;
        const application = r.json.application as { status?: string } | undefined;
        if (application?.status === 'applied') {
          this.done.approvalsApplied += 1;
          this.done.appliedLater += 1;
          break;
        }
        if (application?.status !== 'pending' || Date.now() > limit) {
          this.rec.fail('async', `product approval ${id}`, 200, `approved but ${JSON.stringify(application)}`);
          break;
        }
        await sleep(1_000);
      }
    }
  }

  /** A publication of a product to the channel receiver, followed until it is `published`. */
  async publish(): Promise<void> {
    await this.holding(this.w.publishable, String, async (productId) => {
      const made = await this.api.call('publish', 'POST', '/api/v1/publications', {
        body: { product_id: productId, channel_id: this.w.channelId },
      });
      if (!made) return;
      const id = made.json._id as string;
      this.done.publications.push(id);
      const view = await this.until('publish', `/api/v1/publications/${id}`, ['published', 'failed'], 60_000);
      if (view && view.status !== 'published')
        this.rec.fail('async', `publication ${id}`, 200, `ended ${String(view.status)}: ${JSON.stringify(view)}`);
    });
  }

  /** Polls a job every second until its status is one of `final` (undefined on an error or time-out, recorded). */
  private async until(kind: Kind, path: string, final: string[], limitMs: number): Promise<Json | undefined> {
    const limit = Date.now() + limitMs;
    for (;;) {
      await sleep(1_000);
      const r = await this.api.call(kind, 'GET', path);
      if (!r) return undefined;
      if (final.includes(r.json.status as string)) return r.json;
      if (Date.now() > limit) {
        this.rec.fail(
          'async',
          path,
          200,
          `not final after ${limitMs / 1000} s: ${JSON.stringify(r.json).slice(0, 500)}`,
        );
        return undefined;
      }
    }
  }

  /** A small CSV import of bench products: upload, map the columns, start, wait until it completes. */
  async importSmall(): Promise<void> {
    const round = this.importRound++;
    const rows = Array.from({ length: IMPORT_ROWS }, (_, i) => {
      const k = (round * IMPORT_ROWS + i) % IMPORT_POOL;
      return `SOAK-I-${k};Importado ${k} r${round};${i % 4 === 0 ? 'não' : 'sim'}`;
    });
    const form = new FormData();
    form.append('file', new Blob([`SKU;Nome;Ativo\n${rows.join('\n')}\n`], { type: 'text/csv' }), `soak-${round}.csv`);
    const up = await this.api.call('job', 'POST', '/api/v1/imports', { form });
    if (!up) return;
    const id = up.json._id as string;
    const mapped = await this.api.call('job', 'PATCH', `/api/v1/imports/${id}`, {
      body: { mapped_headers: { A: 'code', B: 'name.pt-BR', C: 'enabled' } },
    });
    if (!mapped) return;
    if (!(await this.api.call('job', 'POST', `/api/v1/imports/${id}/start`))) return;
    const view = await this.until(
      'job',
      `/api/v1/imports/${id}`,
      ['completed', 'completed_with_errors', 'failed', 'canceled'],
      120_000,
    );
    if (!view) return;
    if (view.status !== 'completed' || view.errors_count !== 0) {
      const errors = await this.api.call('job', 'GET', `/api/v1/imports/${id}/errors`);
      this.rec.fail(
        'async',
        `import ${id}`,
        200,
        `ended ${String(view.status)} with ${String(view.errors_count)} errors; ${JSON.stringify(view.logs ?? '').slice(0, 500)} ${errors ? `(errors file ${errors.bytes} bytes)` : ''}`,
      );
      return;
    }
    this.done.imports += 1;
  }

  /** An export of one brand's products (CSV and XLSX in turn): start, wait until completed, download. */
  async exportSmall(): Promise<void> {
    const round = this.exportRound++;
    const made = await this.api.call('job', 'POST', '/api/v1/exports', {
      body: { file_type: round % 2 === 0 ? 'csv' : 'xlsx', filters: { brands: [this.pick(this.w.brands)] } },
    });
    if (!made) return;
    const id = made.json._id as string;
    const view = await this.until('job', `/api/v1/exports/${id}`, ['completed', 'failed'], 120_000);
    if (!view) return;
    if (view.status !== 'completed') {
      this.rec.fail(
        'async',
        `export ${id}`,
        200,
        `ended ${String(view.status)}: ${JSON.stringify(view).slice(0, 800)}`,
      );
      return;
    }
    const file = await this.api.call('job', 'GET', `/api/v1/exports/${id}/download`);
    if (file && file.bytes === 0) this.rec.fail('async', `export ${id} download`, 200, 'empty file');
    if (file) this.done.exports += 1;
  }
}

/** Bench product `k` of the bulk pool, named for the round that writes it. */
function bulkProduct(w: World, k: number, round: number): Json {
  return {
    code: `SOAK-B-${k}`,
    type: 'simple',
    name: { 'pt-BR': `Produto em lote ${k}`, en: `Bulk product ${k} r${round}` },
    brand_id: w.brands[k % w.brands.length],
    categories: [w.categories[k % w.categories.length]],
    enabled: true,
    tags: ['soak', 'bulk'],
  };
}

// ---------------------------------------------------------------------------------------------
// Setup: receivers, the platform, webhooks on every collection, the demo catalog, keys, a channel.

/** Loads the demo catalog and what the load needs besides; returns what the load knows. */
async function seed(gatewayUrl: string, adminKey: string, receiverUrl: string, channelUrl: string): Promise<World> {
  const api = new DemoApi({ url: gatewayUrl, key: adminKey });
  const webhooks: string[] = [];
  for (const c of COLLECTIONS) {
    const r = await api.put('/webhooks', { collection: c.name, url: receiverUrl, enabled: true });
    webhooks.push(r._id as string);
  }
  say(`webhooks: ${webhooks.length} (one per collection) → the receiver`);
  const t = Date.now();
  const demo = await loadDemo({ url: gatewayUrl, key: adminKey, log: (l) => say(`  demo ${l.trim()}`) });
  say(`demo catalog loaded in ${((Date.now() - t) / 1000).toFixed(0)} s (${demo.requests} requests)`);

  const key = async (user: { id: string; name: string }) =>
    (
      await api.post('/api-keys', {
        name: `soak ${user.name}`,
        scopes: ['product_approvals:read', 'product_approvals:write'],
        user_id: user.id,
        user_name: user.name,
      })
    ).key as string;
  const approvers = WORKFLOW_APPROVALS[0].steps;
  if (!approvers[0].approvers.includes(USERS.ana.id) || !approvers[1].approvers.includes(USERS.carla.id))
    throw new Error('the demo workflow approval no longer has Ana at step 1 and Carla at step 2');
  const keys = { ana: await key(USERS.ana), carla: await key(USERS.carla) };
  const channel = await api.post('/channels', {
    code: 'soak',
    name: 'Soak receiver',
    enabled: true,
    endpoint: { url: channelUrl, method: 'POST', timeout_ms: 10_000 },
    language: 'pt-BR',
    mapping: [
      { field: 'title', source: 'name' },
      { field: 'sku', source: 'code' },
      { field: 'id', source: '_id' },
    ],
    auto_republish: false,
  });

  const products = await api.list('/products', { sort: 'code' });
  const byCode = new Map(products.map((p) => [p.code as string, p._id as string]));
  const kitCodes = new Set(KITS.map((k) => k.code));
  const kits: Kit[] = KITS.map((k) => ({
    id: byCode.get(k.code)!,
    parts: Object.keys(k.products).map((c) => byCode.get(c)!),
  }));
  const plain = products.filter((p) => !kitCodes.has(p.code as string));
  const publishable = plain
    .filter((p) => p.type === 'simple' && p.enabled === true)
    .slice(0, PUBLISH_POOL)
    .map((p) => p._id as string);
  const held = new Set(publishable);
  const ids = async (path: string) => (await api.list(path)).map((r) => r._id as string);
  const orders = await api.list('/orders');
  const w: World = {
    products: products.map((p) => p._id as string),
    editable: plain.map((p) => p._id as string).filter((id) => !held.has(id)),
    own: [],
    kits,
    publishable,
    sellable: plain
      .filter((p) => p.type === 'simple' || p.type === 'variation')
      .map((p) => ({
        id: p._id as string,
        code: p.code as string,
        name: ((p.name as Record<string, string>)['pt-BR'] ?? p.code) as string,
      })),
    brands: await ids('/brands'),
    categories: await ids('/categories'),
    tree: (await ids('/category-trees'))[0],
    families: await ids('/families'),
    attributes: await ids('/attributes'),
    orders: orders.map((o) => o._id as string),
    open: orders
      .filter((o) => (MOVES[o.status_code as string] ?? []).length > 0)
      .map((o) => ({ id: o._id as string, status: o.status_code as string })),
    webhooks,
    channelId: channel._id as string,
    keys,
    busy: new Set(),
    n: 0,
  };
  // The bulk pool exists before the load, so its upserts are updates from the first round on.
  for (let from = 0; from < BULK_POOL; from += 100) {
    const items = Array.from({ length: 100 }, (_, i) => bulkProduct(w, from + i, 0));
    const r = await api.post<{ data: { _id?: string; status: string }[] }>('/products/bulk', { items });
    w.products.push(...r.data.filter((d) => d._id).map((d) => d._id!));
  }
  say(
    `seed: ${w.products.length} products (${kits.length} kits, ${publishable.length} to publish, ${w.editable.length} to edit), ` +
      `${w.brands.length} brands, ${w.categories.length} categories, ${w.families.length} families, ${w.attributes.length} attributes, ` +
      `${w.orders.length} orders (${w.open.length} open)`,
  );
  return w;
}

// ---------------------------------------------------------------------------------------------
// Sampling.

/** One app at one sample. */
interface AppSample {
  pid: number | undefined;
  rssMb: number;
  /** The anonymous part of RSS (heaps, allocator arenas; the rest is mapped files). */
  anonMb: number;
  heapMb: number;
  fds: number;
  pg: number;
  nats: number;
}

interface Sample {
  t: number;
  apps: Record<AppName, AppSample>;
  window: ReturnType<Recorder['takeWindow']>;
  windowMs: number;
  requests: number;
  errors: number;
  inFlight: number;
  backlog: number;
  deadLetters: number;
  events: number;
  deliveries: Record<string, number>;
  /** Client connections on the whole Postgres server (every database: the server is shared) and this run's database. */
  server: { all: number; ours: number };
  load1: number;
}

/** The app an application_name belongs to (`pim-catalog`, `pim-gateway-ratelimit`, `io_jobs`…), or undefined. */
function appOfConnection(name: string): AppName | undefined {
  const n = name.replace(/^pim-/, '').replace(/_/g, '-');
  return [...APPS].sort((a, b) => b.length - a.length).find((a) => n === a || n.startsWith(`${a}-`));
}

async function heapOf(port: number | undefined, app: AppName): Promise<number> {
  if (!port) return NaN;
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5_000) })).text();
    const name = `pim_${app.replace(/-/g, '_')}_nodejs_heap_size_used_bytes`;
    const line = text.split('\n').find((l) => l.startsWith(`${name} `));
    return line ? Number(line.split(' ')[1]) / 2 ** 20 : NaN;
  } catch {
    return NaN;
  }
}

// ---------------------------------------------------------------------------------------------
// The run.

/** The soak benchmark; resolves when done (exit code 1 when the judgment fails). */
export async function runSoakBench(argv: string[]): Promise<void> {
  const opts = soakOptions(argv);
  const durationMs = opts.minutes * 60_000;
  const sampleMs = opts.minutes < 10 ? 10_000 : 30_000;
  const warmupMs = Math.min(3 * 60_000, durationMs / 3);
  const adminKey = newToken().token;
  const db = await createTestDatabase('bench_soak');
  const stream = await createTestStream('bench_soak');
  const files = mkdtempSync(join(tmpdir(), 'pim-bench-soak-'));
  const logs: string[] = [];
  const appLogs = new Map<string, { count: number; line: string }>();
  let platform: RunningPlatform | undefined;
  let receiver: LocalReceiver | undefined;
  let channelReceiver: LocalReceiver | undefined;
  const pg = new Client({ connectionString: db.url, application_name: 'soak-bench' });
  const agent = new Agent({ connections: MAX_IN_FLIGHT, keepAliveTimeout: 10_000 });
  let interrupted = false;
  const onSigint = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    say('interrupted: ending the load, then reporting (not written)');
  };
  process.on('SIGINT', onSigint);
  try {
    await pg.connect();
    const machine = await machineOf(pg);
    const loadAtStart = loadavg()[0];
    const maxConnections = Number(
      ((await pg.query(`SHOW max_connections`)).rows[0] as { max_connections: string }).max_connections,
    );
    say(
      `soak: ${opts.minutes} min at ${opts.rate} operations/s, a sample every ${sampleMs / 1000} s; machine ${JSON.stringify(machine)}; load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' / ')}`,
    );
    receiver = await startReceiver('receiver.child.ts', '/hooks');
    channelReceiver = await startReceiver('channel-receiver.child.ts', '/listings');
    const metricsPorts: Record<string, string> = {};
    for (const app of APPS)
      metricsPorts[`${app.toUpperCase().replace(/-/g, '_')}_METRICS_PORT`] = String(await freePort());
    platform = await startBenchPlatform(db, stream, adminKey, logs, {
      WEBHOOKS_ALLOWED_TARGETS: '127.0.0.0/8',
      PUBLISHER_ALLOWED_TARGETS: '127.0.0.0/8',
      FILES_DIR: join(files, 'files'),
      ...metricsPorts,
    });
    const metricsPort = (app: AppName) => Number(metricsPorts[`${app.toUpperCase().replace(/-/g, '_')}_METRICS_PORT`]);
    const natsPort = Number(new URL(stream.url.replace(/^nats:/, 'http:')).port || 4222);

    const world = await seed(platform.gatewayUrl, adminKey, receiver.url, channelReceiver.url);
    const outboxes = (
      await pg.query<{ schema: string }>(
        `SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'outbox' ORDER BY 1`,
      )
    ).rows.map((r) => r.schema);
    const deadLetterTables = (
      await pg.query<{ schema: string }>(
        `SELECT table_schema AS schema FROM information_schema.tables WHERE table_name = 'dead_letters' ORDER BY 1`,
      )
    ).rows.map((r) => r.schema);
    const settled = await settle(pg, outboxes, 120_000);
    say(`seed settled in ${(settled / 1000).toFixed(0)} s; outboxes: ${outboxes.join(', ')}`);
    // Every event from here on must reach the receiver (every webhook exists and is enabled).
    const eventsFrom = new Date(
      ((await pg.query<{ now: Date }>(`SELECT now() AS now`)).rows[0] as { now: Date }).now.getTime(),
    );

    const started = Date.now();
    const rec = new Recorder(started);
    const base = platform.gatewayUrl.replace(/\/api\/v1$/, '');
    const api = new SoakApi(base, adminKey, agent, rec);
    const load = new Load(api, world, rec, random(20261125));
    const samples: Sample[] = [];
    const connectionNames = new Set<string>();
    let inFlight = 0;
    let lastSampleAt = started;
    let lastEventsAt = eventsFrom;
    let pids = Object.fromEntries(APPS.map((a) => [a, appPid(a)])) as Record<AppName, number | undefined>;
    say(`pids: ${JSON.stringify(pids)}`);

    /** New app log lines (warn and above: LOG_LEVEL=warn) counted by app and message, the array kept short. */
    const scanLogs = () => {
      for (const line of logs.splice(0)) {
        const m = /^\[([\w-]+)\] (.*)$/.exec(line);
        let msg = m ? m[2] : line;
        try {
          const j = JSON.parse(msg) as { level?: number; msg?: string; err?: { message?: string } };
          msg = `level ${j.level}: ${j.msg ?? ''}${j.err?.message ? ` (${j.err.message})` : ''}`;
        } catch {
          // a plain line
        }
        const key = `${m?.[1] ?? '?'} ${msg
          .replace(/[0-9a-f]{24}/g, '{id}')
          .replace(/\d+/g, 'N')
          .slice(0, 200)}`;
        const seen = appLogs.get(key);
        if (seen) seen.count += 1;
        else {
          appLogs.set(key, { count: 1, line: line.slice(0, 600) });
          if (appLogs.size <= 30) say(`  app log: ${line.slice(0, 400)}`);
        }
      }
    };

    const takeSample = async (): Promise<Sample> => {
      const now = Date.now();
      const nowPids = Object.fromEntries(APPS.map((a) => [a, appPid(a)])) as Record<AppName, number | undefined>;
      for (const a of APPS)
        if (nowPids[a] !== pids[a])
          rec.fail('async', `app ${a}`, 0, `process ${pids[a] ?? 'none'} is now ${nowPids[a] ?? 'gone'}`);
      pids = nowPids;
      const conns = tcpConnections(APPS.map((a) => pids[a]).filter((p): p is number => p !== undefined));
      const { rows: activity } = await pg.query<{ name: string; n: number }>(
        `SELECT application_name AS name, count(*)::int AS n FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() GROUP BY 1`,
      );
      const pgByApp = new Map<AppName, number>();
      for (const r of activity) {
        connectionNames.add(r.name);
        const app = appOfConnection(r.name);
        if (app) pgByApp.set(app, (pgByApp.get(app) ?? 0) + r.n);
      }
      const server = (
        await pg.query<{ all: number; ours: number }>(
          `SELECT count(*) FILTER (WHERE backend_type = 'client backend')::int AS all,
                  count(*) FILTER (WHERE datname = current_database())::int AS ours FROM pg_stat_activity`,
        )
      ).rows[0];
      const apps = {} as Record<AppName, AppSample>;
      for (const a of APPS) {
        const pid = pids[a];
        const byPort = pid ? conns.get(pid) : undefined;
        let rssMb = NaN;
        let anonMb = NaN;
        try {
          if (pid) {
            rssMb = memoryOf(pid).rss / 2 ** 20;
            anonMb = rssParts(pid).anon / 2 ** 20;
          }
        } catch {
          // gone
        }
        apps[a] = {
          pid,
          rssMb,
          anonMb,
          heapMb: await heapOf(metricsPort(a), a),
          fds: pid ? openFds(pid) : NaN,
          pg: pgByApp.get(a) ?? 0,
          nats: byPort?.get(natsPort) ?? 0,
        };
      }
      const counts = (
        await pg.query<{ backlog: number; events: number }>(
          `SELECT ${outboxes.map((s) => `(SELECT count(*) FROM "${s}".outbox WHERE published_at IS NULL)`).join(' + ')} AS backlog,
                  ${outboxes.map((s) => `(SELECT count(*) FROM "${s}".outbox WHERE occurred_at > $1)`).join(' + ')} AS events`,
          [lastEventsAt],
        )
      ).rows[0];
      lastEventsAt = new Date(now);
      const dead =
        deadLetterTables.length === 0
          ? 0
          : Number(
              (
                await pg.query<{ n: number }>(
                  `SELECT ${deadLetterTables.map((s) => `(SELECT count(*) FROM "${s}".dead_letters)`).join(' + ')} AS n`,
                )
              ).rows[0].n,
            );
      const { rows: byStatus } = await pg.query<{ status: string; n: number }>(
        `SELECT status, count(*)::int AS n FROM webhooks.deliveries WHERE created_at >= $1 GROUP BY 1`,
        [eventsFrom],
      );
      scanLogs();
      const s: Sample = {
        t: now - started,
        apps,
        window: rec.takeWindow(),
        windowMs: now - lastSampleAt,
        requests: rec.requests,
        errors: rec.errors,
        inFlight,
        backlog: Number(counts.backlog),
        deadLetters: dead,
        events: Number(counts.events),
        deliveries: Object.fromEntries(byStatus.map((r) => [r.status, r.n])),
        server,
        load1: loadavg()[0],
      };
      lastSampleAt = now;
      say(sampleLine(s));
      return s;
    };

    // Start-up lines (migrations, allow-lists, the development sealing key) are not the load's.
    logs.length = 0;
    samples.push(await takeSample());
    say(`Postgres connections by application_name: ${[...connectionNames].sort().join(', ')}`);

    // The load: one operation every 1/rate s; imports and exports on their own clocks.
    const end = started + durationMs;
    const launch = (op: () => Promise<void>) => {
      inFlight += 1;
      op()
        .catch((err: Error) => rec.fail('async', 'the bench', 0, err.stack ?? String(err)))
        .finally(() => (inFlight -= 1));
    };
    const importEvery = Math.min(90_000, durationMs / 4);
    const exportEvery = Math.min(120_000, durationMs / 3);
    let nextImport = started + importEvery / 3;
    let nextExport = started + (exportEvery * 2) / 3;
    let nextSample = started + sampleMs;
    const sampling: Promise<void>[] = [];
    for (let i = 0; !interrupted; i++) {
      const due = started + (i * 1000) / opts.rate;
      if (due >= end) break;
      if (due > Date.now()) await sleep(due - Date.now());
      if (Date.now() >= nextSample) {
        nextSample += sampleMs;
        sampling.push(takeSample().then((s) => void samples.push(s)));
      }
      if (Date.now() >= nextImport) {
        nextImport += importEvery;
        launch(() => load.importSmall());
      }
      if (Date.now() >= nextExport) {
        nextExport += exportEvery;
        launch(() => load.exportSmall());
      }
      if (inFlight >= MAX_IN_FLIGHT) {
        rec.skipped += 1;
        continue;
      }
      launch(load.next());
    }
    await Promise.all(sampling);
    const loadEnded = Date.now();
    say(
      `load ended after ${((loadEnded - started) / 1000).toFixed(0)} s; waiting for ${inFlight} operations in flight`,
    );
    while (inFlight > 0 && Date.now() - loadEnded < 180_000) await sleep(200);
    samples.push(await takeSample());

    // The end: the platform settles, then every event since the webhooks were set must have reached the receiver.
    const settleMs = await settle(pg, outboxes, SETTLE_LIMIT_MS);
    say(`settled ${(settleMs / 1000).toFixed(0)} s after the last operation`);
    await load.checkPendingApplications();
    const final = await takeSample();
    const delivery = await checkDeliveries(pg, outboxes, eventsFrom, receiver.base);
    say(`deliveries: ${JSON.stringify({ ...delivery, hits: undefined, missingIds: delivery.missingIds.slice(0, 5) })}`);
    const published = await publicationsPublished(pg, world.channelId);
    const channelStats = (await (await fetch(`${channelReceiver.base}/_stats`)).json()) as {
      count: number;
      distinct: number;
    };
    scanLogs();

    const report = judge({
      opts,
      started,
      loadAtStart,
      maxConnections,
      machine,
      samples,
      final,
      warmupMs,
      durationMs: loadEnded - started,
      rec,
      done: load.done,
      delivery,
      settleMs,
      published,
      channelStats,
      appLogs,
      connectionNames: [...connectionNames].sort(),
      sampleMs,
    });
    for (const l of report.lines) say(l);
    const section = await render(report);
    if (opts.write && !interrupted) {
      const docPath = join(ROOT, 'docs', 'benchmarks.md');
      writeFileSync(docPath, withSection(readFileSync(docPath, 'utf8'), 'Soak', section));
      say('written to docs/benchmarks.md');
    } else say(`\n${section}`);
    say(report.ok ? 'soak: every check met' : 'soak: checks NOT met');
    process.exitCode = report.ok ? 0 : 1;
  } catch (err) {
    say(`soak bench failed: ${(err as Error).stack ?? String(err)}\n${logs.slice(-40).join('\n')}`);
    process.exitCode = 1;
  } finally {
    process.off('SIGINT', onSigint);
    await agent.close().catch(() => undefined);
    await pg.end().catch(() => undefined);
    await platform?.stop();
    receiver?.child.kill('SIGTERM');
    channelReceiver?.child.kill('SIGTERM');
    await stream.destroy();
    await db.drop();
    rmSync(files, { recursive: true, force: true });
  }
}

/** Waits until every outbox is published, no delivery is pending and no client backend is busy, three checks in a row; returns how long it took. */
async function settle(pg: Client, outboxes: string[], limitMs: number): Promise<number> {
  const from = Date.now();
  for (let quiet = 0; quiet < 3 && Date.now() - from < limitMs;) {
    const { rows } = await pg.query<{ pending: number; deliveries: number; busy: number }>(
      `SELECT ${outboxes.map((s) => `(SELECT count(*) FROM "${s}".outbox WHERE published_at IS NULL)`).join(' + ')} AS pending,
              (SELECT count(*) FROM webhooks.deliveries WHERE status = 'pending')::int AS deliveries,
              (SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend'
                  AND state = 'active' AND pid <> pg_backend_pid())::int AS busy`,
    );
    const r = rows[0];
    quiet = Number(r.pending) === 0 && r.deliveries === 0 && r.busy === 0 ? quiet + 1 : 0;
    await sleep(quiet > 0 ? 200 : 1_000);
  }
  return Date.now() - from;
}

/** Events since `from` followed from each outbox to the receiver. */
interface DeliveryCheck {
  events: number;
  unpublished: number;
  notFannedOut: number;
  /** Events the fan-out recorded without a delivery (by type): no webhook matched. */
  withoutDelivery: Record<string, number>;
  deliveries: Record<string, number>;
  received: number;
  duplicates: number;
  missing: number;
  missingIds: string[];
  /** Event (occurred_at) → arrival at the receiver, ms. */
  lag: KindStats;
  /** Lags by the time of arrival (ms since the start of the check's events). */
  hits: { at: number; lag: number }[];
}

async function checkDeliveries(
  pg: Client,
  outboxes: string[],
  from: Date,
  receiverBase: string,
): Promise<DeliveryCheck> {
  const union = outboxes
    .map((s) => `SELECT id, type, published_at FROM "${s}".outbox WHERE occurred_at >= $1`)
    .join(' UNION ALL ');
  const { rows } = await pg.query<{ id: string; type: string; published: boolean; inbox: boolean }>(
    `SELECT o.id, o.type, o.published_at IS NOT NULL AS published, i.event_id IS NOT NULL AS inbox
       FROM (${union}) o LEFT JOIN webhooks.inbox i ON i.event_id = o.id`,
    [from],
  );
  const { rows: dels } = await pg.query<{ event_id: string; status: string; event_type: string }>(
    `SELECT d.event_id, d.status, d.event_type FROM webhooks.deliveries d JOIN webhooks.inbox i ON i.event_id = d.event_id
      WHERE i.occurred_at >= $1`,
    [from],
  );
  const hits = (await (await fetch(`${receiverBase}/_stats`)).json()) as {
    at: number;
    id: string;
    eventAt: number | null;
  }[];
  const got = new Map<string, number>();
  for (const h of hits) got.set(h.id, (got.get(h.id) ?? 0) + 1);
  const delivered = new Set(dels.map((d) => d.event_id));
  const deliveries: Record<string, number> = {};
  for (const d of dels) deliveries[d.status] = (deliveries[d.status] ?? 0) + 1;
  const withoutDelivery: Record<string, number> = {};
  const missingIds: string[] = [];
  for (const e of rows) {
    if (e.inbox && !delivered.has(e.id)) withoutDelivery[e.type] = (withoutDelivery[e.type] ?? 0) + 1;
    if (!got.has(e.id.trim())) missingIds.push(e.id);
  }
  const lags = hits.filter((h) => h.eventAt !== null).map((h) => ({ at: h.at, lag: h.at - (h.eventAt as number) }));
  return {
    events: rows.length,
    unpublished: rows.filter((r) => !r.published).length,
    notFannedOut: rows.filter((r) => !r.inbox).length,
    withoutDelivery,
    deliveries,
    received: rows.filter((r) => got.has(r.id.trim())).length,
    duplicates: [...got.values()].filter((n) => n > 1).length,
    missing: missingIds.length,
    missingIds,
    lag: statsOf(lags.map((l) => l.lag)),
    hits: lags,
  };
}

/** Publications to the soak channel by status (SQL: the publisher's own table). */
async function publicationsPublished(pg: Client, channelId: string): Promise<Record<string, number>> {
  const { rows } = await pg.query<{ status: string; n: number }>(
    `SELECT status, count(*)::int AS n FROM publisher.publications WHERE channel_id = $1 GROUP BY 1`,
    [channelId],
  );
  return Object.fromEntries(rows.map((r) => [r.status, r.n]));
}

// ---------------------------------------------------------------------------------------------
// Judgment and report.

const mb = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : 'n/a');
const ms0 = (x: number) => (Number.isFinite(x) ? x.toFixed(0) : '–');
const median = (xs: number[]) => {
  const s = xs.filter(Number.isFinite).sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const max = (xs: number[]) => Math.max(...xs.filter(Number.isFinite));
/** A level as "median (highest) → median (highest)", after warm-up → last third. */
const lv = (l: Level) => `${l.base} (${l.baseMax}) → ${l.last} (${l.lastMax})`;

function sampleLine(s: Sample): string {
  const rps = (s.window.requests / Math.max(1, s.windowMs)) * 1000;
  const rss = APPS.map((a) => `${a} ${mb(s.apps[a].rssMb)}`).join(' ');
  const res = APPS.map((a) => `${s.apps[a].fds}/${s.apps[a].pg}/${s.apps[a].nats}`).join(' ');
  const kinds = KINDS.filter((k) => s.window.byKind[k])
    .map((k) => `${k} ${ms0(s.window.byKind[k]!.p50)}/${ms0(s.window.byKind[k]!.p99)}`)
    .join(', ');
  return (
    `[${(s.t / 1000).toFixed(0).padStart(5)} s] ${rps.toFixed(1)} req/s, ${s.errors} errors, in flight ${s.inFlight}, ` +
    `outbox ${s.backlog}, deliveries ${JSON.stringify(s.deliveries)}, dead letters ${s.deadLetters}, events ${s.events}, load ${s.load1.toFixed(2)}, ` +
    `Postgres server connections ${s.server.all} (this run ${s.server.ours})\n` +
    `         RSS MB: ${rss}\n         fd/pg/nats: ${res}\n         p50/p99 ms: ${kinds}`
  );
}

interface JudgeInput {
  opts: SoakOptions;
  /** When the load started (ms since the epoch). */
  started: number;
  /** The machine's 1-minute load average before the platform started. */
  loadAtStart: number;
  /** The shared Postgres server's max_connections. */
  maxConnections: number;
  machine: Awaited<ReturnType<typeof machineOf>>;
  samples: Sample[];
  final: Sample;
  warmupMs: number;
  durationMs: number;
  rec: Recorder;
  done: Done;
  delivery: DeliveryCheck;
  settleMs: number;
  published: Record<string, number>;
  channelStats: { count: number; distinct: number };
  appLogs: Map<string, { count: number; line: string }>;
  connectionNames: string[];
  sampleMs: number;
}

/** A count's median and highest value after warm-up and in the last third. */
interface Level {
  base: number;
  baseMax: number;
  last: number;
  lastMax: number;
}

/** Per app: its levels after warm-up and in the last third. */
interface AppTrend {
  app: AppName;
  rss: { base: number; last: number; lastMax: number; change: number; slopeMbPerHour: number };
  heap: { base: number; last: number };
  anon: { base: number; last: number };
  fds: Level;
  pg: Level;
  nats: Level;
  ok: { rss: boolean; fds: boolean; pg: boolean; nats: boolean };
}

interface Report extends JudgeInput {
  trends: AppTrend[];
  checks: { name: string; result: string; ok: boolean }[];
  ok: boolean;
  lines: string[];
  baseWindow: [number, number];
  lastWindow: [number, number];
}

/** Least-squares slope of y over x. */
function slope(xs: number[], ys: number[]): number {
  const n = xs.length;
  if (n < 2) return NaN;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

function judge(input: JudgeInput): Report {
  const { samples, warmupMs, durationMs, rec, delivery } = input;
  // The level after warm-up: samples in the first third of what follows the warm-up; the end: the last third of the run.
  const baseWindow: [number, number] = [warmupMs, warmupMs + (durationMs - warmupMs) / 3];
  const lastWindow: [number, number] = [(durationMs * 2) / 3, durationMs + 1];
  const loadSamples = samples.filter((s) => s.t <= durationMs + 1);
  const inWin = (w: [number, number]) => loadSamples.filter((s) => s.t >= w[0] && s.t < w[1]);
  const base = inWin(baseWindow);
  const last = inWin(lastWindow);
  const after = loadSamples.filter((s) => s.t >= warmupMs);
  const trends: AppTrend[] = APPS.map((app) => {
    const v = (ss: Sample[], f: (a: AppSample) => number) => ss.map((s) => f(s.apps[app]));
    const rssBase = median(v(base, (a) => a.rssMb));
    const rssLast = median(v(last, (a) => a.rssMb));
    const level = (f: (a: AppSample) => number): Level => ({
      base: median(v(base, f)),
      baseMax: max(v(base, f)),
      last: median(v(last, f)),
      lastMax: max(v(last, f)),
    });
    const fds = level((a) => a.fds);
    const pgc = level((a) => a.pg);
    const nats = level((a) => a.nats);
    const rss = {
      base: rssBase,
      last: rssLast,
      lastMax: max(v(last, (a) => a.rssMb)),
      change: rssLast / rssBase - 1,
      slopeMbPerHour:
        slope(
          after.map((s) => s.t / 3_600_000),
          v(after, (a) => a.rssMb),
        ) || NaN,
    };
    return {
      app,
      rss,
      heap: { base: median(v(base, (a) => a.heapMb)), last: median(v(last, (a) => a.heapMb)) },
      anon: { base: median(v(base, (a) => a.anonMb)), last: median(v(last, (a) => a.anonMb)) },
      fds,
      pg: pgc,
      nats,
      ok: {
        rss: Number.isFinite(rss.change) && rss.change <= RSS_TOLERANCE,
        // Pools open connections for bursts and close them when idle: the peaks move, a leak raises the floor.
        fds: fds.last <= fds.baseMax,
        pg: pgc.last <= pgc.baseMax,
        nats: nats.lastMax <= nats.baseMax,
      },
    };
  });
  const pct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;
  const worst = [...trends].sort((a, b) => b.rss.change - a.rss.change)[0];
  const fail = (f: (t: AppTrend) => boolean) => trends.filter((t) => !f(t)).map((t) => t.app);
  const pending = input.final.deliveries.pending ?? 0;
  const publishedCount = input.published.published ?? 0;
  const publications = input.done.publications.length;
  const checks = [
    {
      name: 'errors (every answer 2xx; jobs, publications and approvals ended well)',
      result: `${rec.errors} of ${rec.requests.toLocaleString('en')} requests (${rec.distinct.size} distinct)`,
      ok: rec.errors === 0,
    },
    {
      name: `RSS flat (median of the last third ≤ +${RSS_TOLERANCE * 100} % of the median after warm-up)`,
      result: `largest change: ${worst.app} ${pct(worst.rss.change)}${fail((t) => t.ok.rss).length ? `; over: ${fail((t) => t.ok.rss).join(', ')}` : ''}`,
      ok: trends.every((t) => t.ok.rss),
    },
    {
      name: 'open files not growing (median of the last third ≤ highest after warm-up)',
      result: fail((t) => t.ok.fds).length ? `growing: ${fail((t) => t.ok.fds).join(', ')}` : 'flat in every app',
      ok: trends.every((t) => t.ok.fds),
    },
    {
      name: 'Postgres connections not growing (median of the last third ≤ highest after warm-up)',
      result: fail((t) => t.ok.pg).length ? `growing: ${fail((t) => t.ok.pg).join(', ')}` : 'flat in every app',
      ok: trends.every((t) => t.ok.pg),
    },
    {
      name: 'NATS connections not growing (highest of the last third ≤ highest after warm-up)',
      result: fail((t) => t.ok.nats).length
        ? `growing: ${fail((t) => t.ok.nats).join(', ')}`
        : `flat: ${trends.map((t) => `${t.app} ${t.nats.last}`).join(', ')}`,
      ok: trends.every((t) => t.ok.nats),
    },
    {
      name: 'every event since the webhooks were set reached the receiver',
      result: `${delivery.received.toLocaleString('en')} of ${delivery.events.toLocaleString('en')} events (${delivery.missing} missing, ${delivery.duplicates} received twice)`,
      ok: delivery.missing === 0 && delivery.events > 0,
    },
    {
      name: 'outboxes drained, no delivery pending, no dead letter (after the load)',
      result: `outbox ${input.final.backlog}, pending ${pending}, dead letters ${input.final.deadLetters} (settled in ${(input.settleMs / 1000).toFixed(0)} s)`,
      ok: input.final.backlog === 0 && pending === 0 && input.final.deadLetters === 0,
    },
    {
      name: 'every publication published, each received once',
      result: `${publishedCount} of ${publications} published; the channel received ${input.channelStats.count} (${input.channelStats.distinct} distinct keys)`,
      ok: publishedCount === publications && input.channelStats.distinct === publications,
    },
  ];
  const ok = checks.every((c) => c.ok);
  const lines = [
    '',
    `requests ${rec.requests.toLocaleString('en')} in ${(durationMs / 1000).toFixed(0)} s (${((rec.requests / durationMs) * 1000).toFixed(1)}/s), errors ${rec.errors}, skipped ${rec.skipped}`,
    ...[...rec.distinct.values()].map((e) => `  error ×${e.count} (${e.kind}) ${e.what} → ${e.status}: ${e.body}`),
    ...trends.map(
      (t) =>
        `${t.app.padEnd(10)} RSS ${mb(t.rss.base)} → ${mb(t.rss.last)} MB (${pct(t.rss.change)}, max ${mb(t.rss.lastMax)}, ${t.rss.slopeMbPerHour.toFixed(1)} MB/h), anon ${mb(t.anon.base)} → ${mb(t.anon.last)} MB, heap ${mb(t.heap.base)} → ${mb(t.heap.last)} MB, ` +
        `fds ${lv(t.fds)}, pg ${lv(t.pg)}, nats ${lv(t.nats)}`,
    ),
    ...checks.map((c) => `${c.ok ? 'met    ' : 'NOT MET'} ${c.name}: ${c.result}`),
    ...(input.appLogs.size
      ? [
          `app log lines (warn and above), by message:`,
          ...[...input.appLogs.values()].map((l) => `  ×${l.count} ${l.line}`),
        ]
      : []),
  ];
  return { ...input, trends, checks, ok, lines, baseWindow, lastWindow };
}

/** What the RSS tolerance means in bytes kept per request and per event between the two windows. */
function sensitivity(r: Report) {
  const at = (t: number) => r.samples.reduce((a, b) => (Math.abs(b.t - t) < Math.abs(a.t - t) ? b : a));
  const from = at((r.baseWindow[0] + r.baseWindow[1]) / 2);
  const to = at((r.lastWindow[0] + r.durationMs) / 2);
  const between = r.samples.filter((s) => s.t > from.t && s.t <= to.t);
  const requests = to.requests - from.requests;
  const events = between.reduce((n, s) => n + s.events, 0);
  const smallestMb = Math.min(...r.trends.map((t) => t.rss.base).filter(Number.isFinite));
  const bytes = RSS_TOLERANCE * smallestMb * 2 ** 20;
  return {
    requests,
    events,
    smallestMb,
    bytesPerRequest: Math.round(bytes / Math.max(1, requests)),
    bytesPerEvent: Math.round(bytes / Math.max(1, events)),
  };
}

async function render(r: Report): Promise<string> {
  const min = (t: number) => (t / 60_000).toFixed(1);
  const every = Math.max(1, Math.round(r.samples.length / 13));
  const shown = r.samples.filter((_, i) => i % every === 0 || i === r.samples.length - 1);
  /** Event → arrival at the receiver of the deliveries that arrived in a sample's window. */
  const lagIn = (s: Sample) => {
    const to = r.started + s.t;
    return statsOf(r.delivery.hits.filter((h) => h.at > to - s.windowMs && h.at <= to).map((h) => h.lag));
  };
  const mark = (ok: boolean) => (ok ? 'met' : '**not met**');
  const all = r.rec.all;
  const everyMs = [...all.values()].flat();
  const allStats = statsOf(everyMs);
  const rows = shown
    .map((s) => {
      const rps = (s.window.requests / Math.max(1, s.windowMs)) * 1000;
      const lag = lagIn(s);
      return `| ${min(s.t)} | ${rps.toFixed(1)} | ${s.errors} | ${ms0(s.window.all.p50)} / ${ms0(s.window.all.p99)} | ${s.backlog} | ${s.deliveries.pending ?? 0} | ${(s.deliveries.succeeded ?? 0).toLocaleString('en')} | ${ms0(lag.p50)} / ${ms0(lag.p99)} | ${s.server.all} (${s.server.ours}) | ${APPS.map((a) => mb(s.apps[a].rssMb)).join(' | ')} |`;
    })
    .join('\n');
  const resRows = shown
    .map(
      (s) =>
        `| ${min(s.t)} | ${APPS.map((a) => `${s.apps[a].fds} / ${s.apps[a].pg} / ${s.apps[a].nats}`).join(' | ')} |`,
    )
    .join('\n');
  const trendRows = r.trends
    .map(
      (t) =>
        `| ${t.app} | ${mb(t.rss.base)} | ${mb(t.rss.last)} (max ${mb(t.rss.lastMax)}) | ${(t.rss.change * 100).toFixed(1)} % | ${t.rss.slopeMbPerHour.toFixed(1)} | ${mb(t.anon.base)} → ${mb(t.anon.last)} | ${mb(t.heap.base)} → ${mb(t.heap.last)} | ${lv(t.fds)} | ${lv(t.pg)} | ${lv(t.nats)} | ${mark(t.ok.rss && t.ok.fds && t.ok.pg && t.ok.nats)} |`,
    )
    .join('\n');
  const kindRows = KINDS.filter((k) => all.get(k))
    .map((k) => {
      const st = statsOf(all.get(k)!);
      return `| ${k} | ${st.n.toLocaleString('en')} | ${ms0(st.p50)} | ${ms0(st.p99)} | ${ms0(st.max)} |`;
    })
    .join('\n');
  const errors = [...r.rec.distinct.values()]
    .map(
      (e) =>
        `- ×${e.count} (${e.kind}, first at ${(e.firstAt / 1000).toFixed(0)} s) \`${e.what}\` → ${e.status}: \`${e.body.replace(/`/g, "'").slice(0, 600)}\``,
    )
    .join('\n');
  const d = r.done;
  const sens = sensitivity(r);
  const logLines = [...r.appLogs.values()]
    .map((l) => `- ×${l.count} \`${l.line.replace(/`/g, "'").slice(0, 400)}\``)
    .join('\n');
  const md = `## Soak

\`npm run bench -- soak\` (\`tools/bench/soak.ts\`) on ${new Date().toISOString().slice(0, 10)}: ${r.opts.minutes} minute${r.opts.minutes === 1 ? '' : 's'} of mixed load at ${r.opts.rate} operations/s
(${((r.rec.requests / r.durationMs) * 1000).toFixed(1)} requests/s measured) on the whole platform, one process per app; ${r.machine.cores} cores, ${r.machine.cpu},
${r.machine.memory}, Node ${r.machine.node}, Postgres ${r.machine.postgres}. The platform, Postgres, NATS, both receivers and the
bench client share these cores, with other work of the machine (load average ${r.loadAtStart.toFixed(2)} at the start,
${r.final.load1.toFixed(2)} at the end).

| check | result | |
| --- | --- | --- |
${r.checks.map((c) => `| ${c.name} | ${c.result} | ${mark(c.ok)} |`).join('\n')}

Per app: RSS (MB) is the median of the samples after warm-up (${min(r.baseWindow[0])}–${min(r.baseWindow[1])} min) and of the last third
(${min(r.lastWindow[0])}–${min(r.durationMs)} min); the trend is the least-squares slope of every sample after warm-up. Open files,
Postgres connections (pg_stat_activity by application_name) and NATS connections (the process's TCP connections to the NATS port) the same way.

| app | RSS after warm-up | RSS last third | change | trend MB/h | RSS anonymous | V8 heap used | open files | Postgres | NATS | |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |
${trendRows}

Samples (every ${every === 1 ? '' : `${every}th `}sample of ${r.samples.length}, one every ${r.sampleMs / 1000} s; requests/s and latency over the window before it; RSS in MB):

| min | req/s | errors | p50 / p99 ms | outbox | deliveries pending | delivered | delivery lag p50 / p99 ms | Postgres server connections (this run's) | ${APPS.join(' | ')} |
| --- | --- | --- | --- | --- | --- | --- | --- | --- | ${APPS.map(() => '---').join(' | ')} |
${rows}

Open files / Postgres connections / NATS connections, per app:

| min | ${APPS.join(' | ')} |
| --- | ${APPS.map(() => '---').join(' | ')} |
${resRows}

Latency by kind over the whole run (ms, through the gateway):

| kind | requests | p50 | p99 | max |
| --- | --- | --- | --- | --- |
${kindRows}
| all | ${allStats.n.toLocaleString('en')} | ${ms0(allStats.p50)} | ${ms0(allStats.p99)} | ${ms0(allStats.max)} |

What ran: ${d.bulkItems.toLocaleString('en')} products through ${Math.round(d.bulkItems / BULK_ITEMS)} bulk upserts; ${d.approvalsApplied} kit approvals applied${d.appliedLater ? ` (${d.appliedLater} of them after the approve had answered)` : ''} and
${d.approvalsRejected} rejected; ${d.ordersFinished} orders moved to a final status; ${d.publications.length} publications;
${d.imports} imports of ${IMPORT_ROWS} rows and ${d.exports} exports (each downloaded). Deliveries: ${r.delivery.events.toLocaleString('en')} events since the
webhooks were set (${JSON.stringify(r.delivery.deliveries)}), event → arrival at the receiver p50 ${ms0(r.delivery.lag.p50)} ms, p99 ${ms0(r.delivery.lag.p99)} ms,
max ${ms0(r.delivery.lag.max)} ms.${r.rec.skipped ? ` ${r.rec.skipped} operations were skipped: ${MAX_IN_FLIGHT} were already in flight.` : ''}
${errors ? `\nErrors, each once with its body:\n\n${errors}\n` : ''}${logLines ? `\nApp log lines at warn or above during the load, each once:\n\n${logLines}\n` : '\nNo app logged a line at warn or above during the load.\n'}
How it is measured:

- The platform as \`npm start\` runs it (one process per app) on a fresh database and JetStream stream; a webhook on every
  collection (${COLLECTIONS.length}) delivering to a receiver in its own process; the demo catalog (\`tools/demo\`: 14 attribute
  types, brands, a category tree, families, 229 products with kits and variations, a workflow, a workflow approval with
  Ana and Carla as approvers, 40 orders); API keys bound to Ana and Carla; a channel whose endpoint is a second receiver;
  ${BULK_POOL} bench products for the bulk upserts. The load starts once that has settled.
- The load starts one operation every 1/${r.opts.rate} s, chosen by weight: reads by id (products 18, other records 6),
  filtered lists (products 10, others 5), \`_search\` 8; product PATCHes with If-Match on the version just read 8, creations 3,
  full replaces with If-Match 3, bulk upserts of ${BULK_ITEMS} products 2; orders created 3 and moved along the workflow 7;
  a kit's approval one step at a time 4 (proposed by Ana, step 1 by Ana, rejected one time in eight, step 2 by Carla, then
  applied to the catalog); publications 2 (followed until published). Every ${(Math.min(90_000, r.durationMs / 4) / 1000).toFixed(0)} s a
  CSV import of ${IMPORT_ROWS} rows (upload, map, start, wait), every ${(Math.min(120_000, r.durationMs / 3) / 1000).toFixed(0)} s an
  export of one brand (CSV and XLSX in turn: start, wait, download). A record is written by one operation at a time, so
  no 409 or 412 is expected: every non-2xx answer (and every request without an answer in ${REQUEST_TIMEOUT_MS / 1000} s) is an error.
- Samples: RSS from /proc/<pid>/status, open files from /proc/<pid>/fd, NATS connections from the process's sockets in
  /proc/net/tcp (the shared nats-server has no monitoring port), Postgres connections from pg_stat_activity by
  application_name (\`pim-<app>\` and \`pim-<app>-<purpose>\`: each app's pool and its LISTEN connections), the V8 heap
  used from each app's /metrics. The outbox backlog sums the unpublished rows of every app's outbox. The Postgres
  server is shared with other work of the machine (max_connections ${r.maxConnections}); its client connections in all
  databases peaked at ${Math.max(...r.samples.map((s) => s.server.all))} in the samples, this run's at
  ${Math.max(...r.samples.map((s) => s.server.ours))}.
- Why +${RSS_TOLERANCE * 100} % for RSS: a Node process's RSS follows V8's heap, which grows in steps and is collected
  lazily (tens of MB between samples here), and the allocator returns freed pages to the system only now and then; the
  median of each window's samples absorbs that, and ${RSS_TOLERANCE * 100} % stays above it. It still catches a small
  leak: between the middle of the window after warm-up and the middle of the last third the platform served
  ${sens.requests.toLocaleString('en')} requests and ${sens.events.toLocaleString('en')} events, so ${RSS_TOLERANCE * 100} % of the smallest app
  (${mb(sens.smallestMb)} MB) is ${sens.bytesPerRequest.toLocaleString('en')} bytes kept per request, or
  ${sens.bytesPerEvent.toLocaleString('en')} per event. The trend column (least-squares over every sample after warm-up) shows
  the same from all samples.
- Open files and connections: pools open connections for bursts and close them when idle, so the peaks move from
  sample to sample while a leak raises the floor. The check compares the median of the last third with the highest
  value after warm-up (the table shows median (highest) for both windows).
- At the end the load stops, the platform settles (outboxes published, no delivery pending, no busy session), and every
  event written since the webhooks were set is followed from its app's outbox (${r.delivery.events.toLocaleString('en')}
  events: ${r.delivery.unpublished} unpublished, ${r.delivery.notFannedOut} not recorded by the fan-out) to the receiver's
  log of \`webhook-id\`s.
`;
  return format(md, { ...(await resolveConfig(join(ROOT, 'docs', 'benchmarks.md'))), parser: 'markdown' });
}
