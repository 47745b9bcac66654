import { z } from 'zod';
import { baseSchema, loadConfig, port, positiveInt } from '@pim/config';

/** The largest upload unless UPLOAD_MAX_BYTES says otherwise: 200 MiB. */
export const UPLOAD_MAX_BYTES = 200 * 1024 * 1024;

/** Environment of the gateway. */
export const gatewayConfigSchema = baseSchema.extend({
  PORT: port(8080),
  /** Prometheus metrics on http://0.0.0.0:<port>/metrics; 0 (the default) turns them off. */
  GATEWAY_METRICS_PORT: port(0),
  HOST: z.string().default('0.0.0.0'),
  /** The URL callers see (for list envelope links and the OpenAPI servers entry). */
  PUBLIC_URL: z.url().optional(),
  WEBHOOKS_GRPC_URL: z.string().min(1).default('127.0.0.1:50057'),
  CATALOG_GRPC_URL: z.string().min(1).default('127.0.0.1:50051'),
  JSON_BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb)$/i, 'must look like 1mb, 512kb or 1048576b')
    .default('1mb'),
  /** Body limit of bulk routes (POST /products/bulk). */
  BULK_BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb)$/i, 'must look like 16mb, 512kb or 1048576b')
    .default('16mb'),
  /** The largest upload in bytes (an import's file; default 200 MiB): a larger one gets 413 before it is all sent on. */
  UPLOAD_MAX_BYTES: positiveInt(UPLOAD_MAX_BYTES),
  /** The longest an upload may take to arrive (default one hour). */
  UPLOAD_TIMEOUT_MS: positiveInt(3_600_000),
  PAGE_SIZE_MAX: positiveInt(100),
  PAGE_SIZE_DEFAULT: positiveInt(25),
  /** An admin key that must exist (created at start if missing); `npm start` generates one on first start. */
  PIM_BOOTSTRAP_API_KEY: z
    .string()
    .regex(
      /^pim_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/,
      'must look like pim_<12 lowercase letters or digits>_<43 base64url characters>',
    )
    .optional(),
  RATE_LIMIT_PER_MINUTE: positiveInt(600),
  /** The longest a verified API key is trusted from memory (changes reach every replica at once by NOTIFY anyway); 0 reads every request's key from the database. */
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
  /** Requests a minute from one IP address without a valid key. */
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: positiveInt(60),
  /** Comma-separated origins allowed by CORS; empty allows none (server-to-server callers need none). */
  CORS_ORIGINS: z.string().default(''),
  /** A request that has not been answered by then gets a 503 error object. */
  REQUEST_TIMEOUT_MS: positiveInt(30_000),
  IDEMPOTENCY_RETENTION_HOURS: positiveInt(24),
  /** Trust X-Forwarded-For from this many proxies in front of the gateway (for per-IP limits). */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
});

/** Parsed environment of the gateway. */
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** Reads and validates the environment once. */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): GatewayConfig => loadConfig(gatewayConfigSchema, env);
