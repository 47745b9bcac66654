import { z } from 'zod';
import { baseSchema, flag, loadConfig, port } from '@pim/config';

/** Environment of the webhooks app. */
export const webhooksConfigSchema = baseSchema.extend({
  WEBHOOKS_GRPC_PORT: port(50057),
  PIM_SUBJECT_PREFIX: z.string().regex(/^([a-z0-9_-]+\.)?$/i, 'must be empty or end with a dot').default(''),
  OUTBOX_RELAY: flag(true),
});

/** Parsed environment of the webhooks app. */
export type WebhooksConfig = z.infer<typeof webhooksConfigSchema>;

/** Reads and validates the environment once. */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): WebhooksConfig => loadConfig(webhooksConfigSchema, env);
