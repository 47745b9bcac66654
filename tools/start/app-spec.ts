/** How the launcher runs one app: its kind decides the health check, its env names where it listens. */
export interface AppSpec {
  /** Folder name under apps/, also the prefix of its output lines. */
  name: string;
  /** grpc: checked with grpc.health.v1.Health/Check; http: checked with GET /readyz. */
  kind: 'grpc' | 'http';
  /** Default port, used unless the environment sets `portEnv` or the caller asks for free ports. */
  port: number;
  /** Variable the app reads its own port from. */
  portEnv: string;
  /** grpc apps: variable every app receives as `127.0.0.1:<port>`, so callers find this app. */
  addressEnv?: string;
  /** Run `migrate.ts` of the app before anything starts. */
  migrate?: boolean;
  /** Entry file; default `apps/<name>/src/main.ts` (relative paths are from the repository root). */
  entry?: string;
  /** Migration script; default `apps/<name>/src/migrate.ts`. */
  migrateEntry?: string;
  /** Variable the app reads its Prometheus metrics port from, and the port `npm start` gives it. */
  metrics?: { env: string; port: number };
  /** Variables only this app receives. */
  env?: Record<string, string>;
}
