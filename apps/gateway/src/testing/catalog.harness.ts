import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { join } from 'node:path';
import express from 'express';
import type { Server as HttpServer } from 'node:http';
import { createLogger, currentContext } from '@pim/logging';
import { workflow as workflowPb } from '@pim/contracts';
import { HealthChecker, createRpcClient } from '@pim/rpc';
import {
  createTestDatabase,
  createTestStream,
  startAppProcess,
  type TestDatabase,
  type TestStream,
} from '@pim/testing';
import { Api } from '../http/route';
import { errorHandler, notFoundHandler, requireJson } from '../http/errors';
import { requestContext } from '../http/request-context';
import { buildDocument, createRegistry, type ApiDocument } from '../document';
import type { Principal } from '../auth/scopes';
import { createCatalogClients, type CatalogClients } from '../routes/catalog/catalog.clients';
import { catalogRoutes } from '../routes/catalog/catalog.routes';

const ROOT = join(__dirname, '..', '..', '..', '..');

/** A response as tests read it. */
export interface HarnessResponse {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

/** The catalog app as a real process, and the gateway's catalog routes in front of it. */
export interface CatalogHarness {
  db: TestDatabase;
  stream: TestStream;
  clients: CatalogClients;
  document: ApiDocument;
  /**
   * An HTTP call to the catalog routes. The caller holds `admin` unless `x-test-scopes` names
   * its scopes (comma-separated); `x-test-user` names it.
   */
  request(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<HarnessResponse>;
  /** Creates a users group in the workflow app beside the catalog (catalogs and attribute groups may only name live ones); returns its id. */
  newUsersGroup(name?: string): Promise<string>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function runNode(file: string, env: NodeJS.ProcessEnv, output: string[]): ChildProcess {
  const child = spawn(process.execPath, ['-r', require.resolve('@swc-node/register'), join(ROOT, file)], {
    cwd: ROOT,
    env: { ...process.env, ...env, SWC_NODE_PROJECT: join(ROOT, 'tsconfig.json') },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (d: Buffer) => output.push(d.toString()));
  child.stderr?.on('data', (d: Buffer) => output.push(d.toString()));
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

/**
 * Migrates a fresh database, starts `apps/catalog/src/main.ts` on a free port (its own stream),
 * and serves the gateway's catalog routes on loopback through the gateway's own Api, error
 * handler and request context. Only the API-key gate is stood in for (scopes come from a header).
 */
export async function catalogHarness(): Promise<CatalogHarness> {
  const db = await createTestDatabase('gwcatalog');
  const stream = await createTestStream('gwcatalog');
  const output: string[] = [];
  // The catalog asks the workflow app about the users groups catalogs and attribute groups name.
  const workflow = await startAppProcess('workflow', db.url);
  const usersGroups = createRpcClient(workflowPb.UsersGroupsServiceClient, {
    service: 'workflow',
    address: workflow.address,
    deadlineMs: 5_000,
  });
  let groups = 0;
  const port = await freePort();
  const env = {
    DATABASE_URL: db.url,
    NATS_URL: stream.url,
    PIM_EVENTS_STREAM: stream.name,
    PIM_SUBJECT_PREFIX: stream.subjectPrefix,
    CATALOG_GRPC_PORT: String(port),
    WORKFLOW_GRPC_URL: workflow.address,
    LOG_LEVEL: 'warn',
  };
  const migrated = await exited(runNode('apps/catalog/src/migrate.ts', env, output));
  if (migrated !== 0) throw new Error(`catalog migrations failed:\n${output.join('')}`);
  const app = runNode('apps/catalog/src/main.ts', env, output);
  const stopApp = async () => {
    if (app.exitCode !== null || app.signalCode !== null) return;
    const stopped = exited(app);
    app.kill('SIGTERM');
    await stopped;
  };
  const address = `127.0.0.1:${port}`;
  const health = new HealthChecker(address);
  try {
    const until = Date.now() + 30_000;
    while ((await health.check('pim.catalog.v1.CategoriesService', 500)) !== 'SERVING') {
      if (Date.now() > until || app.exitCode !== null)
        throw new Error(`the catalog app did not become healthy:\n${output.join('')}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch (err) {
    await stopApp();
    await stream.destroy();
    await db.drop();
    throw err;
  } finally {
    health.close();
  }

  const clients = createCatalogClients({ address, deadlineMs: 5_000 });
  const registry = createRegistry();
  const api = new Api(registry, '/api/v1');
  catalogRoutes(api, clients, { maxLimit: 100, defaultLimit: 25 });
  const web = express();
  web.set('query parser', 'simple');
  web.use(requestContext);
  web.use((req, res, next) => {
    const scopes = (req.get('x-test-scopes') ?? 'admin').split(',').filter(Boolean);
    const principal: Principal = {
      keyId: 'test',
      prefix: 'test',
      scopes,
      key_name: 'test',
      user_name: req.get('x-test-user') ?? 'tester',
    };
    res.locals.principal = principal;
    const ctx = currentContext();
    if (ctx) ctx.actor = { user_name: principal.user_name };
    next();
  });
  web.use('/api/v1', requireJson(), express.json({ limit: '1mb' }), api.router);
  web.use(notFoundHandler());
  web.use(errorHandler(createLogger({ service: 'gateway-test', level: 'silent' })));
  const server: HttpServer = web.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    db,
    stream,
    clients,
    document: buildDocument(registry),
    async request(method, path, body, headers = {}) {
      const res = await fetch(`${base}${path}`, {
        method,
        headers: body === undefined ? headers : { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return {
        status: res.status,
        headers: res.headers,
        json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
      };
    },
    async newUsersGroup(name = `group ${++groups}`) {
      const { data } = await usersGroups.createUsersGroup({ input: { source_id: 'test', name, users: [] } });
      return data!.id;
    },
    async close() {
      clients.close();
      usersGroups.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await stopApp();
      await workflow.stop();
      await stream.destroy();
      await db.drop();
    },
  };
}
