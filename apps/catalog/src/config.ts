import { z } from 'zod';
import { flag, loadConfig, ownerSchema, port } from '@pim/config';

/** Environment of the catalog app. */
export const catalogConfigSchema = ownerSchema.extend({
  CATALOG_GRPC_PORT: port(50051),
  /** Prometheus metrics on http://0.0.0.0:<port>/metrics; 0 (the default) turns them off. */
  CATALOG_METRICS_PORT: port(0),
  /** Run the completeness worker (recomputes stored completeness after required attributes change) in this process. */
  COMPLETENESS_WORKER: flag(true),
  /** The workflow app (`host:port`), which keeps the users groups catalogs and attribute groups name. */
  WORKFLOW_GRPC_URL: z.string().min(1).default('127.0.0.1:50058'),
});

/** Parsed environment of the catalog app. */
export type CatalogConfig = z.infer<typeof catalogConfigSchema>;

/** Reads and validates the environment once. */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): CatalogConfig => loadConfig(catalogConfigSchema, env);
