import type { AddressInfo } from 'node:net';
import { answerClientErrors } from '../http/client-errors';
import type { Server } from 'node:http';
import { Pool } from 'pg';
import type { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { webhooks as pb } from '@pim/contracts';
import { createDataSource, migrate } from '@pim/db';
import { createLogger } from '@pim/logging';
import { HealthChecker, createRpcClient } from '@pim/rpc';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { createApp } from '../app';
import { createCatalogClients } from '../routes/catalog/catalog.clients';
import { SCHEMA, dataSourceOptions } from '../data-source';
import { ApiKeyService } from '../auth/api-key.service';
import { newToken } from '../auth/api-key.token';
import { IdempotencyService } from '../idempotency/idempotency.service';
import { RateLimiter } from '../rate-limit/rate-limit';

/** Options of a gateway under test. */
export interface GatewayTestOptions {
  /** Where the webhooks app is; default: a closed port (calls answer 503). */
  webhooksAddress?: string;
  /** Where the catalog app is; default: a closed port (calls answer 503). */
  catalogAddress?: string;
  ratePerMinute?: number;
  anonymousRatePerMinute?: number;
  jsonBodyLimit?: string;
  requestTimeoutMs?: number;
  /** A Prometheus registry the first replica counts its requests on. */
  metrics?: Registry;
}

/** A response as tests read it. */
export interface TestResponse {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

/** A running gateway (or several replicas) on a fresh, migrated database with a bootstrap admin key. */
export interface GatewayTestContext {
  db: TestDatabase;
  ds: DataSource;
  adminKey: string;
  /** Base URL of the first replica. */
  base: string;
  /** The first replica's express app (for route census). */
  app: ReturnType<typeof createApp>;
  /** Starts one more replica on the same database and returns its base URL. */
  addReplica(): Promise<string>;
  /** Creates a key through the service and returns its token. */
  newKey(scopes: string[], user?: { user_id?: string; user_name?: string; expires_at?: string }): Promise<string>;
  /** An HTTP call with the admin key unless `authorization` is given ('' sends none). */
  request(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
    base?: string,
  ): Promise<TestResponse>;
  close(): Promise<void>;
}

/** Starts the gateway on loopback with its real database pieces. */
export async function gatewayTestContext(opts: GatewayTestOptions = {}): Promise<GatewayTestContext> {
  const db = await createTestDatabase('gateway');
  await migrate(dataSourceOptions(db.url));
  const ds = createDataSource(dataSourceOptions(db.url));
  await ds.initialize();
  const keys = new ApiKeyService(ds);
  const adminKey = newToken().token;
  await keys.ensureBootstrap(adminKey);
  const address = opts.webhooksAddress ?? '127.0.0.1:1';
  const closers: (() => Promise<unknown> | void)[] = [];

  const apps: ReturnType<typeof createApp>[] = [];
  const startReplica = async (): Promise<string> => {
    const pool = new Pool({ connectionString: db.url, max: 5 });
    pool.on('error', () => undefined); // idle connections dropped when the test database goes
    const webhooks = createRpcClient(pb.WebhooksServiceClient, { service: 'webhooks', address, deadlineMs: 2000 });
    const health = new HealthChecker(address);
    const catalog = createCatalogClients({ address: opts.catalogAddress ?? '127.0.0.1:1', deadlineMs: 2000 });
    const replicaKeys = new ApiKeyService(ds);
    await replicaKeys.start();
    closers.push(() => replicaKeys.stop());
    const app = createApp({
      logger: createLogger({ service: 'gateway-test', level: 'silent' }),
      webhooks,
      catalog,
      keys: replicaKeys,
      idempotency: new IdempotencyService(ds, { retentionMs: 24 * 3600_000, waitMs: 10_000 }),
      rateLimits: {
        perKey: new RateLimiter(pool, opts.ratePerMinute ?? 10_000, { schema: SCHEMA, keyPrefix: 'rl' }),
        perIp: new RateLimiter(pool, opts.anonymousRatePerMinute ?? 10_000, { schema: SCHEMA, keyPrefix: 'rl-anon' }),
      },
      dependencies: { webhooks: health },
      jsonBodyLimit: opts.jsonBodyLimit ?? '1kb',
      maxLimit: 100,
      defaultLimit: 25,
      publicUrl: 'http://127.0.0.1',
      corsOrigins: ['https://app.example.com'],
      requestTimeoutMs: opts.requestTimeoutMs ?? 30_000,
      trustProxyHops: 0,
      metrics: apps.length === 0 ? opts.metrics : undefined,
    });
    app.setReady(true);
    apps.push(app);
    const server: Server = app.listen(0, '127.0.0.1');
    answerClientErrors(server, createLogger({ service: 'gateway-test', level: 'silent' }));
    await new Promise((r) => server.once('listening', r));
    closers.push(async () => {
      webhooks.close();
      catalog.close();
      health.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await pool.end();
    });
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  const base = await startReplica();
  return {
    db,
    ds,
    adminKey,
    base,
    app: apps[0],
    addReplica: startReplica,
    async newKey(scopes, user = {}) {
      return (await keys.create({ name: 'test key', scopes, ...user })).token;
    },
    async request(method, path, body, headers = {}, at = base) {
      const { authorization, ...rest } = headers;
      const auth: Record<string, string> =
        authorization === '' ? {} : { authorization: authorization ?? `Bearer ${adminKey}` };
      const res = await fetch(`${at}${path}`, {
        method,
        headers: body === undefined ? { ...auth, ...rest } : { 'content-type': 'application/json', ...auth, ...rest },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      let json: Record<string, unknown> = {};
      try {
        json = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      } catch {
        json = { text };
      }
      return { status: res.status, headers: res.headers, json };
    },
    async close() {
      for (const c of closers) await c();
      await ds.destroy();
      await db.drop();
    },
  };
}
