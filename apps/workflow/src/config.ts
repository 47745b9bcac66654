import type { z } from 'zod';
import { loadConfig, ownerSchema, port } from '@pim/config';

/** Environment of the workflow app. */
export const workflowConfigSchema = ownerSchema.extend({
  WORKFLOW_GRPC_PORT: port(50058),
  /** Prometheus metrics on http://0.0.0.0:<port>/metrics; 0 (the default) turns them off. */
  WORKFLOW_METRICS_PORT: port(0),
});

/** Parsed environment of the workflow app. */
export type WorkflowConfig = z.infer<typeof workflowConfigSchema>;

/** Reads and validates the environment once. */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): WorkflowConfig =>
  loadConfig(workflowConfigSchema, env);
