import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apps } from '../../tools/start';

// The README's quick start, as a newcomer runs it: `npm start` with no DATABASE_URL and no
// NATS_URL (embedded Postgres, local nats-server under the data folder), Ctrl-C, and a second
// start that finds the first one's data.
const root = join(__dirname, '..', '..');

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

interface Started {
  child: ChildProcess;
  output: () => string;
  apiUrl: string;
  docsUrl: string;
  printedKey?: string;
}

async function npmStart(env: NodeJS.ProcessEnv): Promise<Started> {
  const child = spawn('npm', ['start'], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out += d.toString()));
  child.stderr!.on('data', (d) => (out += d.toString()));
  const until = Date.now() + 90_000;
  while (!/Ctrl-C stops everything/.test(out)) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${out}`);
    if (Date.now() > until) throw new Error(`npm start did not come up:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const apiUrl = /API\s+(http\S+)/.exec(out)?.[1] ?? '';
  const printedKey = /admin API key \(shown once[^)]*\): (pim_\S+)/.exec(out)?.[1];
  const docsUrl = /docs\s+(http\S+)/.exec(out)?.[1] ?? '';
  return { child, output: () => out, apiUrl, docsUrl, printedKey };
}

/** Whether something accepts connections on a local port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Ctrl-C as a terminal sends it (to the whole foreground group); resolves once every port is free. */
async function ctrlC(s: Started, ports: number[]): Promise<void> {
  const exited = new Promise<void>((resolve) => s.child.once('exit', () => resolve()));
  process.kill(-s.child.pid!, 'SIGINT');
  await exited;
  expect(s.output()).toContain('stopping');
  for (const port of ports) expect({ port, listening: await listening(port) }).toEqual({ port, listening: false });
}

describe('npm start (embedded Postgres, local nats-server)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'pim-start-'));
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    env = { ...process.env, PIM_DATA_DIR: dataDir, LOG_LEVEL: 'warn', NO_COLOR: '1' };
    delete env.DATABASE_URL;
    delete env.NATS_URL;
    delete env.PIM_EVENTS_STREAM;
    delete env.PIM_SUBJECT_PREFIX;
    delete env.PIM_BOOTSTRAP_API_KEY;
    // Every port of its own, so the test passes beside a platform the developer runs (`npm start`
    // on the default ports): each app's, each app's metrics, the embedded Postgres's and NATS's.
    const variables = [
      ...apps.flatMap((app) => [app.portEnv, ...(app.metrics ? [app.metrics.env] : [])]),
      'PIM_PG_PORT',
      'PIM_NATS_PORT',
    ];
    const taken = new Set<number>();
    for (const variable of variables) {
      let port = await freePort();
      while (taken.has(port)) port = await freePort();
      taken.add(port);
      env[variable] = String(port);
    }
    ports = [...taken];
  });

  let ports: number[] = [];

  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('comes up, prints the URLs, serves the API, stops on Ctrl-C and keeps its data for the next start', async () => {
    const first = await npmStart(env);
    try {
      expect(first.apiUrl).toBe(`http://127.0.0.1:${env.PORT}/api/v1`);
      expect(first.docsUrl).toBe(`http://127.0.0.1:${env.PORT}/docs`);
      expect(first.printedKey).toMatch(/^pim_[a-z0-9]{12}_/);
      expect((await fetch(`${first.apiUrl}/webhooks`)).status).toBe(401);
      const put = await fetch(`${first.apiUrl}/webhooks`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${first.printedKey}` },
        body: JSON.stringify({ collection: 'products', url: 'https://example.com/h' }),
      });
      expect(put.status).toBe(200);
      expect((await fetch(first.docsUrl + '/')).status).toBe(200);
      // `npm run status` finds it through the data folder: every app healthy, with its memory.
      const status = spawnSync('npm', ['run', '--silent', 'status'], { cwd: root, env, encoding: 'utf8' });
      expect(status.status).toBe(0);
      for (const app of apps) expect(status.stdout).toMatch(new RegExp(`^${app.name} +\\d+ +healthy +0 +\\d+ MB`, 'm'));
      expect(status.stdout).toContain(`API       ${first.apiUrl}`);
    } finally {
      await ctrlC(first, ports);
    }
    const stopped = spawnSync('npm', ['run', '--silent', 'status'], { cwd: root, env, encoding: 'utf8' });
    expect(stopped.status).toBe(3);
    expect(stopped.stdout).toContain('The platform is not running');

    const second = await npmStart(env);
    try {
      expect(second.output()).not.toMatch(/initdb|initializ/i);
      expect(second.printedKey).toBeUndefined();
      const key = readFileSync(join(dataDir, 'bootstrap-api-key'), 'utf8').trim();
      expect(key).toBe(first.printedKey);
      const list = (await (
        await fetch(`${second.apiUrl}/webhooks`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as { total: number; data: { collection: string }[] };
      expect(list.total).toBe(1);
      expect(list.data[0].collection).toBe('products');
    } finally {
      await ctrlC(second, ports);
    }
    // Two whole starts of every app (six of them, each migrating first) on the embedded Postgres.
  }, 240_000);
});
