import { z } from 'zod';
import { flag, loadConfig, ownerSchema, port } from '@pim/config';

/** Environment of the workflow app. */
export const workflowConfigSchema = ownerSchema.extend({
  WORKFLOW_GRPC_PORT: port(50058),
  /** Prometheus metrics on http://0.0.0.0:<port>/metrics; 0 (the default) turns them off. */
  WORKFLOW_METRICS_PORT: port(0),
  /** The catalog's gRPC address: products are checked there and approved changes applied there. */
  CATALOG_GRPC_URL: z.string().min(1).default('127.0.0.1:50051'),
  /** The orders app's gRPC address: a workflow that open orders follow is not deleted. */
  ORDERS_GRPC_URL: z.string().min(1).default('127.0.0.1:50059'),
  /** Whether this replica applies approved product approvals to the catalog in the background (every replica may). */
  PRODUCT_APPROVAL_APPLIER: flag(true),
  /** How long an application taken by a replica is its own before another may take it again (ms). */
  PRODUCT_APPROVAL_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
});

/** Parsed environment of the workflow app. */
export type WorkflowConfig = z.infer<typeof workflowConfigSchema>;

/** Reads and validates the environment once. */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): WorkflowConfig =>
  loadConfig(workflowConfigSchema, env);
