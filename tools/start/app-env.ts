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
 * The environment of one app: the launcher's own, the shared settings, every gRPC app's
 * address (so the gateway finds them), its own port and metrics port, then its own extras.
 */
export function appEnvironment(
  app: AppSpec,
  apps: AppSpec[],
  ports: Record<string, number>,
  shared: SharedSettings,
  base: NodeJS.ProcessEnv,
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
    if (other.kind === 'grpc' && other.addressEnv) env[other.addressEnv] = `127.0.0.1:${ports[other.name]}`;
  }
  env[app.portEnv] = String(ports[app.name]);
  if (app.metrics) env[app.metrics.env] = base[app.metrics.env] ?? (shared.metrics ? String(app.metrics.port) : '0');
  return { ...env, ...app.env };
}
