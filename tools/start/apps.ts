import type { AppSpec } from './app-spec';

/**
 * Every app `npm start` runs, in start order (gRPC apps are started and healthy before HTTP apps).
 * A new app joins with one entry; its entry is apps/<name>/src/main.ts and, with `migrate`,
 * apps/<name>/src/migrate.ts. Each serves Prometheus metrics on its own port (9464 and up) unless
 * its `<APP>_METRICS_PORT` is set (`0`: none).
 */
export const apps: AppSpec[] = [
  {
    name: 'webhooks',
    kind: 'grpc',
    port: 50057,
    addressEnv: 'WEBHOOKS_GRPC_URL',
    portEnv: 'WEBHOOKS_GRPC_PORT',
    metrics: { env: 'WEBHOOKS_METRICS_PORT', port: 9464 },
    migrate: true,
  },
  {
    name: 'catalog',
    kind: 'grpc',
    port: 50051,
    addressEnv: 'CATALOG_GRPC_URL',
    portEnv: 'CATALOG_GRPC_PORT',
    metrics: { env: 'CATALOG_METRICS_PORT', port: 9465 },
    migrate: true,
  },
  {
    name: 'workflow',
    kind: 'grpc',
    port: 50058,
    addressEnv: 'WORKFLOW_GRPC_URL',
    portEnv: 'WORKFLOW_GRPC_PORT',
    metrics: { env: 'WORKFLOW_METRICS_PORT', port: 9466 },
    migrate: true,
  },
  {
    name: 'orders',
    kind: 'grpc',
    port: 50059,
    addressEnv: 'ORDERS_GRPC_URL',
    portEnv: 'ORDERS_GRPC_PORT',
    metrics: { env: 'ORDERS_METRICS_PORT', port: 9467 },
    migrate: true,
  },
  {
    name: 'io-jobs',
    kind: 'grpc',
    port: 50060,
    addressEnv: 'IO_JOBS_GRPC_URL',
    portEnv: 'IO_JOBS_GRPC_PORT',
    metrics: { env: 'IO_JOBS_METRICS_PORT', port: 9468 },
    migrate: true,
  },
  {
    name: 'publisher',
    kind: 'grpc',
    port: 50061,
    addressEnv: 'PUBLISHER_GRPC_URL',
    portEnv: 'PUBLISHER_GRPC_PORT',
    metrics: { env: 'PUBLISHER_METRICS_PORT', port: 9469 },
    migrate: true,
  },
  {
    name: 'gateway',
    kind: 'http',
    port: 8080,
    portEnv: 'PORT',
    metrics: { env: 'GATEWAY_METRICS_PORT', port: 9470 },
    migrate: true,
  },
];
