import { z } from 'zod';
import { baseSchema, loadConfig, port, positiveInt } from '@pim/config';

/** Environment of the gateway. */
export const gatewayConfigSchema = baseSchema.extend({
  PORT: port(8080),
  HOST: z.string().default('0.0.0.0'),
  /** The URL callers see (for list envelope links and the OpenAPI servers entry). */
  PUBLIC_URL: z.url().optional(),
  WEBHOOKS_GRPC_URL: z.string().min(1).default('127.0.0.1:50057'),
  JSON_BODY_LIMIT: z.string().regex(/^\d+(b|kb|mb)$/i, 'must look like 1mb, 512kb or 1048576b').default('1mb'),
  PAGE_SIZE_MAX: positiveInt(100),
  PAGE_SIZE_DEFAULT: positiveInt(25),
});

/** Parsed environment of the gateway. */
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** Reads and validates the environment once. */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): GatewayConfig => loadConfig(gatewayConfigSchema, env);
