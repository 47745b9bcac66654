import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HealthChecker } from '@pim/rpc';
import { createTestDatabase, createTestStream, freePort, type TestDatabase, type TestStream } from '@pim/testing';
import { INIT } from './agreement';
import { ensureBaseImage } from './base';
import { buildImage } from './build';
import { type Container, Containers, removeOrphans } from './container';
import { dockerfileFacts } from './dockerfile';
import {
  IMAGE_TEST_COMMANDS,
  REQUIRE_IMAGE_TESTS,
  imageTestSkipReason,
  imageTestsRequired,
  missingCommands,
  requireCommands,
} from './podman';

// deploy/Dockerfile built with podman from this repository (on a Debian base made locally: no
// registry is reachable), then run as the manifests run it — uid/gid 1000, read-only root, no
// capabilities, only /tmp writable — against the machine's Postgres (a fresh database) and NATS
// (its own stream): the catalog's `migrate` then `main` (gRPC health), the gateway's (HTTP health),
// PID 1, the user, and a clean stop on SIGTERM. The images stay for the next run (cached layers).
// It runs where podman, runc and debootstrap are, and is skipped with the reason printed where one
// is missing, so `npm test` passes on a development machine without them; with
// PIM_REQUIRE_IMAGE_TESTS=1 (.ci/run sets it) it runs anyway and fails naming what is missing.
const skipped = imageTestSkipReason(missingCommands(IMAGE_TEST_COMMANDS), process.env);
if (skipped) console.warn(`The image test (tools/image/image.e2e.spec.ts) is ${skipped}.`);
const describeImage = skipped ? describe.skip : describe;

const containers = new Containers(`pim-image-${randomBytes(3).toString('hex')}`);
const [uid, gid] = (dockerfileFacts().user ?? '').split(':').map(Number);
let image: string;
let db: TestDatabase | undefined;
let stream: TestStream | undefined;
// The catalog's /tmp as Kubernetes mounts an emptyDir: mode 0777, no sticky bit.
let emptyDir: string | undefined;

async function setUp(): Promise<void> {
  // Reached with a command missing only when the environment demands the test: fail naming it.
  const demanded = imageTestsRequired(process.env) ? `, demanded by ${REQUIRE_IMAGE_TESTS}=1` : '';
  requireCommands(IMAGE_TEST_COMMANDS, `the image test (tools/image/image.e2e.spec.ts${demanded})`);
  emptyDir = mkdtempSync(join(tmpdir(), 'pim-image-tmp-'));
  chmodSync(emptyDir, 0o777);
  await removeOrphans();
  const base = await ensureBaseImage();
  const built = await buildImage({ base: base.image });
  image = built.image;
  console.log(
    `base ${base.image}: ${base.created ? `made in ${(base.ms / 1000).toFixed(0)} s` : 'reused'}; ` +
      `${image}: built in ${(built.ms / 1000).toFixed(0)} s, ${(built.bytes / 1e6).toFixed(0)} MB`,
  );
  db = await createTestDatabase('image');
  stream = await createTestStream('image');
}

async function tearDown(): Promise<void> {
  await containers.removeAll();
  await stream?.destroy();
  await db?.drop();
  if (emptyDir) rmSync(emptyDir, { recursive: true, force: true });
}

/** Polls until check() is true; the error says what was awaited and what the container printed. */
async function eventually(what: string, check: () => Promise<boolean>, container: Container, timeoutMs = 60_000) {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (!(await container.running()) || Date.now() > until) {
      throw new Error(`${what}: not in time (${container.name}):\n${(await container.logs()).slice(-4000)}`);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Runs the app's migrations in the image and expects them to apply and the container to exit 0. */
async function migrate(app: string) {
  const r = await containers.runToEnd({ image, app, command: 'migrate', env: { DATABASE_URL: db!.url } });
  expect({ code: r.code, output: r.stdout + r.stderr }).toEqual({
    code: 0,
    output: expect.stringMatching(/applied \d+ migration\(s\)/),
  });
}

/** Expects PID 1 to be tini and every process to run as the image's user. */
async function expectInitAndUser(container: Container) {
  const processes = await container.processes();
  expect(processes.find((p) => p.pid === 1)).toEqual({ pid: 1, command: INIT, uid, gid });
  expect(processes.find((p) => p.command === 'node')).toMatchObject({ uid, gid });
  expect(processes.filter((p) => p.uid !== uid || p.gid !== gid)).toEqual([]);
}

describeImage('the platform image, one app at a time', () => {
  let catalog: Container;
  let gateway: Container;
  let catalogPort: number;

  beforeAll(setUp, 20 * 60_000);
  afterAll(tearDown, 60_000);

  it('refuses an APP that names no app, saying which exist', async () => {
    const r = await containers.runToEnd({ image, app: 'nope' });
    expect(r.code).toBe(64);
    expect(r.stderr).toContain('APP must name an app: one of catalog gateway io-jobs orders publisher webhooks');
  });

  it('catalog: `migrate` applies the migrations and exits; `main` answers gRPC health SERVING', async () => {
    await migrate('catalog');
    catalogPort = await freePort();
    catalog = await containers.start({
      image,
      app: 'catalog',
      tmp: { hostDir: emptyDir! },
      env: {
        DATABASE_URL: db!.url,
        NATS_URL: stream!.url,
        PIM_EVENTS_STREAM: stream!.name,
        PIM_SUBJECT_PREFIX: stream!.subjectPrefix,
        CATALOG_GRPC_PORT: String(catalogPort),
      },
    });
    const health = new HealthChecker(`127.0.0.1:${catalogPort}`);
    try {
      await eventually(
        'grpc.health.v1.Health/Check SERVING',
        async () => (await health.check()) === 'SERVING',
        catalog,
      );
    } finally {
      health.close();
    }
    await expectInitAndUser(catalog);
    const write = await catalog.exec(['touch', '/srv/pim/written']);
    expect(write.stderr).toContain('Read-only file system');
  });

  it('gateway: `migrate`, then `main` answers GET /healthz, and /readyz sees the catalog SERVING', async () => {
    await migrate('gateway');
    const port = await freePort();
    const nobody = `127.0.0.1:${await freePort()}`;
    gateway = await containers.start({
      image,
      app: 'gateway',
      env: {
        DATABASE_URL: db!.url,
        PORT: String(port),
        HOST: '127.0.0.1',
        CATALOG_GRPC_URL: `127.0.0.1:${catalogPort}`,
        // The apps this test does not start: a port nobody listens on (never a running platform's).
        ...Object.fromEntries(
          ['WEBHOOKS', 'WORKFLOW', 'ORDERS', 'IO_JOBS', 'PUBLISHER'].map((a) => [`${a}_GRPC_URL`, nobody]),
        ),
      },
    });
    const get = (path: string) => fetch(`http://127.0.0.1:${port}${path}`).catch(() => undefined);
    await eventually('GET /healthz 200', async () => (await get('/healthz'))?.status === 200, gateway);
    expect(await (await get('/healthz'))!.json()).toEqual({ status: 'ok' });
    // The gateway's health client connects to the catalog on its first check: poll, as the probe does.
    let ready: { status?: number; body?: { dependencies?: Record<string, string> } } = {};
    const catalogServing = async () => {
      const res = await get('/readyz');
      ready = { status: res?.status, body: (await res?.json()) as typeof ready.body };
      return ready.body?.dependencies?.catalog === 'SERVING';
    };
    await eventually('GET /readyz listing the catalog SERVING', catalogServing, gateway, 30_000);
    expect(ready).toMatchObject({
      status: 200,
      body: { status: 'ready', dependencies: { catalog: 'SERVING', webhooks: 'UNREACHABLE' } },
    });
    await expectInitAndUser(gateway);
  });

  it('stops cleanly on `podman stop`: SIGTERM reaches the app, which exits 0 well within the grace time', async () => {
    // The manifests give 40 s (terminationGracePeriodSeconds); podman's SIGKILL would come after 30.
    for (const container of [gateway, catalog]) {
      const { ms, exitCode } = await container.stop(30);
      expect({ container: container.name, exitCode, fast: ms < 15_000 }).toEqual({
        container: container.name,
        exitCode: 0,
        fast: true,
      });
      expect(await container.logs()).toContain('"msg":"stopped"');
    }
  });
});
