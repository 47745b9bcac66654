import { isAbsolute, join } from 'node:path';
import type { AppSpec } from './app-spec';

/** Where the shared services are and how apps should behave; the same for every app. */
export interface SharedSettings {
  databaseUrl: string;
  natsUrl: string;
  eventsStream: string;
  subjectPrefix: string;
  logLevel: string;
  /** Where apps keep files (imports' uploads, exports): `<dataDir>/files` unless FILES_DIR is set. */
  filesDir: string;
  /**
   * Whether apps serve metrics on their default ports (`npm start`); off when the platform runs on
   * free ports (tests), where fixed metrics ports would clash. `<APP>_METRICS_PORT` set wins.
   */
  metrics: boolean;
}

/** Entry and migration files of an app, absolute. */
export function appFiles(app: AppSpec, root: string): { entry: string; migrate: string } {
  const abs = (p: string): string => (isAbsolute(p) ? p : join(root, p));
  return {
    entry: abs(app.entry ?? join('apps', app.name, 'src', 'main.ts')),
    migrate: abs(app.migrateEntry ?? join('apps', app.name, 'src', 'migrate.ts')),
  };
}

/**
 * The port of every app: a free one each ('free'), consecutive ones from a number, or else the
 * app's `portEnv` from `env`, falling back to its default. Two apps never share a port.
 */
export async function assignPorts(
  apps: AppSpec[],
  portBase: 'free' | number | undefined,
  env: NodeJS.ProcessEnv,
  pickFree: () => Promise<number>,
): Promise<Record<string, number>> {
  const ports: Record<string, number> = {};
  for (const [i, app] of apps.entries()) {
    if (portBase === 'free') {
      let port = await pickFree();
      // The OS may hand out the same free port twice in a row; ask again.
      while (Object.values(ports).includes(port)) port = await pickFree();
      ports[app.name] = port;
      continue;
    }
    const raw = typeof portBase === 'number' ? String(portBase + i) : (env[app.portEnv] ?? String(app.port));
    const port = Number(raw);
    if (!Number.isInteger(port) || port < 1 || port > 65535) {
      throw new Error(`${app.portEnv}=${JSON.stringify(raw)} is not a port (app ${app.name})`);
    }
    const clash = Object.entries(ports).find(([, p]) => p === port);
    if (clash) throw new Error(`${app.name} and ${clash[0]} would both use port ${port}`);
    ports[app.name] = port;
  }
  return ports;
}

/**
 * Ports of the extra replicas of each app (`replicas` > 1): free ones, never one already taken.
 * The first replica keeps the port `assignPorts` gave the app.
 */
export async function assignReplicaPorts(
  apps: AppSpec[],
  replicas: (app: AppSpec) => number,
  taken: Record<string, number>,
  pickFree: () => Promise<number>,
): Promise<Record<string, number[]>> {
  const used = new Set(Object.values(taken));
  const ports: Record<string, number[]> = {};
  for (const app of apps) {
    ports[app.name] = [taken[app.name]];
    for (let i = 1; i < replicas(app); i++) {
      let port = await pickFree();
      while (used.has(port)) port = await pickFree();
      used.add(port);
      ports[app.name].push(port);
    }
  }
  return ports;
}

/** The name of one replica of an app: `catalog` for the first, `catalog-2`, `catalog-3`… for the others. */
export function replicaName(app: string, index: number): string {
  return index === 0 ? app : `${app}-${index + 1}`;
}

/** How callers reach an app: `127.0.0.1:<port>`, or every replica in one gRPC target (`ipv4:…,…`). */
export function grpcTarget(ports: number | readonly number[]): string {
  const list = typeof ports === 'number' ? [ports] : ports;
  return list.length === 1 ? `127.0.0.1:${list[0]}` : `ipv4:${list.map((p) => `127.0.0.1:${p}`).join(',')}`;
}

/**
 * The environment of one replica of an app: the launcher's own, the shared settings, every gRPC
 * app's address (all its replicas, so callers spread their calls), its own port and metrics port,
 * then its own extras. `ports` holds each app's port, or the ports of its replicas.
 */
export function appEnvironment(
  app: AppSpec,
  apps: AppSpec[],
  ports: Record<string, number | readonly number[]>,
  shared: SharedSettings,
  base: NodeJS.ProcessEnv,
  replica = 0,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...base,
    DATABASE_URL: shared.databaseUrl,
    NATS_URL: shared.natsUrl,
    PIM_EVENTS_STREAM: shared.eventsStream,
    PIM_SUBJECT_PREFIX: shared.subjectPrefix,
    LOG_LEVEL: shared.logLevel,
    FILES_DIR: base.FILES_DIR || shared.filesDir,
  };
  for (const other of apps) {
    if (other.kind === 'grpc' && other.addressEnv) env[other.addressEnv] = grpcTarget(ports[other.name]);
  }
  const own = ports[app.name];
  env[app.portEnv] = String(typeof own === 'number' ? own : own[replica]);
  // Extra replicas serve no metrics: the port configured or given is the first replica's.
  if (app.metrics)
    env[app.metrics.env] =
      replica > 0 ? '0' : (base[app.metrics.env] ?? (shared.metrics ? String(app.metrics.port) : '0'));
  return { ...env, ...app.env };
}
