import { z } from 'zod';
import { baseSchema, flag, loadConfig, port } from '@pim/config';

/** Environment of the catalog app. */
export const catalogConfigSchema = baseSchema.extend({
  CATALOG_GRPC_PORT: port(50051),
  PIM_SUBJECT_PREFIX: z
    .string()
    .regex(/^([a-z0-9_-]+\.)?$/i, 'must be empty or end with a dot')
    .default(''),
  /** Run the outbox relay (publishes this app's events) in this process. */
  OUTBOX_RELAY: flag(true),
  /** Run the completeness worker (recomputes stored completeness after required attributes change) in this process. */
  COMPLETENESS_WORKER: flag(true),
});

/** Parsed environment of the catalog app. */
export type CatalogConfig = z.infer<typeof catalogConfigSchema>;

/** Reads and validates the environment once. */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): CatalogConfig => loadConfig(catalogConfigSchema, env);
