import { z } from 'zod';
import { loadConfig, ownerSchema, port } from '@pim/config';

/** Environment of the orders app. */
export const ordersConfigSchema = ownerSchema.extend({
  ORDERS_GRPC_PORT: port(50059),
  /** Prometheus metrics on http://0.0.0.0:<port>/metrics; 0 (the default) turns them off. */
  ORDERS_METRICS_PORT: port(0),
  /** The workflow app's gRPC address: a new order copies its workflow from there. */
  WORKFLOW_GRPC_URL: z.string().min(1).default('127.0.0.1:50058'),
});

/** Parsed environment of the orders app. */
export type OrdersConfig = z.infer<typeof ordersConfigSchema>;

/** Reads and validates the environment once. */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): OrdersConfig => loadConfig(ordersConfigSchema, env);
