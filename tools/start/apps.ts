import type { AppSpec } from './app-spec';

/**
 * Every app `npm start` runs, in start order (gRPC apps are started and healthy before HTTP apps).
 * A new app joins with one line; its entry is apps/<name>/src/main.ts and, with `migrate`,
 * apps/<name>/src/migrate.ts.
 */
export const apps: AppSpec[] = [
  {
    name: 'webhooks',
    kind: 'grpc',
    port: 50057,
    addressEnv: 'WEBHOOKS_GRPC_URL',
    portEnv: 'WEBHOOKS_GRPC_PORT',
    migrate: true,
  },
  {
    name: 'catalog',
    kind: 'grpc',
    port: 50051,
    addressEnv: 'CATALOG_GRPC_URL',
    portEnv: 'CATALOG_GRPC_PORT',
    migrate: true,
  },
  {
    name: 'workflow',
    kind: 'grpc',
    port: 50058,
    addressEnv: 'WORKFLOW_GRPC_URL',
    portEnv: 'WORKFLOW_GRPC_PORT',
    migrate: true,
  },
  {
    name: 'orders',
    kind: 'grpc',
    port: 50059,
    addressEnv: 'ORDERS_GRPC_URL',
    portEnv: 'ORDERS_GRPC_PORT',
    migrate: true,
  },
  {
    name: 'io-jobs',
    kind: 'grpc',
    port: 50060,
    addressEnv: 'IO_JOBS_GRPC_URL',
    portEnv: 'IO_JOBS_GRPC_PORT',
    migrate: true,
  },
  {
    name: 'publisher',
    kind: 'grpc',
    port: 50061,
    addressEnv: 'PUBLISHER_GRPC_URL',
    portEnv: 'PUBLISHER_GRPC_PORT',
    migrate: true,
  },
  { name: 'gateway', kind: 'http', port: 8080, portEnv: 'PORT', migrate: true },
];
