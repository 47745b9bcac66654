import { z } from 'zod';
import { flag, loadConfig, ownerSchema, port, positiveInt } from '@pim/config';
import { allowListSetting, scheduleSetting } from '@pim/outbound';
import { requireOperatorKeys, secretsKeysSetting, type WithOperatorKeys } from '@pim/secrets';

/** Delays before each new request after a timeout, a network error or a 5xx (then the publication fails). */
const DEFAULT_SCHEDULE = '5s,30s,2m,10m,30m';

/** Environment of the publisher app. */
export const publisherConfigSchema = ownerSchema.extend({
  PUBLISHER_GRPC_PORT: port(50061),
  /** Prometheus metrics on http://0.0.0.0:<port>/metrics; 0 (the default) turns them off. */
  PUBLISHER_METRICS_PORT: port(0),
  /** Where the catalog answers (products, and the outcomes recorded on them). */
  CATALOG_GRPC_URL: z.string().min(1).default('127.0.0.1:50051'),
  /** Run the sender (publications → channel requests) in this process. */
  PUBLISHER_SENDER: flag(true),
  /** Requests to channels in flight per process. */
  PUBLISHER_CONCURRENCY: positiveInt(64),
  /** Delays before each retry: durations with ms, s, m or h, comma-separated. */
  PUBLISHER_RETRY_SCHEDULE: scheduleSetting(DEFAULT_SCHEDULE),
  /** Each retry delay is spread by ±this fraction so channels are not hit in waves. */
  PUBLISHER_RETRY_JITTER: z.coerce.number().min(0).max(1).default(0.2),
  /** How long a claimed publication stays reserved by its sender; longer than the longest channel timeout (60 s). */
  PUBLISHER_LEASE_MS: z.coerce.number().int().min(61_000).default(90_000),
  /** Claim polling when no notification arrives (a retry coming due, a lease run out). */
  PUBLISHER_POLL_MS: positiveInt(1_000),
  /** CIDR ranges channels may be reached at although they are private, e.g. 127.0.0.0/8,::1/128. */
  PUBLISHER_ALLOWED_TARGETS: allowListSetting(),
  /** Consume products.updated to publish changed products again on channels with auto_republish. */
  PUBLISHER_AUTO_REPUBLISH: flag(true),
  /** Durable JetStream consumer shared by every replica's auto-republish. */
  PUBLISHER_AUTO_REPUBLISH_CONSUMER: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('publisher-auto-republish'),
  /** Operator keys that seal the channels' credentials at rest: `id:base64key,…`, the current key first. */
  PIM_SECRETS_KEYS: secretsKeysSetting(),
});

/** Parsed environment of the publisher app. */
export type PublisherConfig = z.infer<typeof publisherConfigSchema>;

/** Reads and validates the environment once (the migrations read it so: they need no operator key). */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): PublisherConfig =>
  loadConfig(publisherConfigSchema, env);

/** The environment the app serves with: its operator keys settled. */
export type PublisherAppConfig = WithOperatorKeys<PublisherConfig>;

/** readConfig, then the operator keys: unset, production refuses to start and development uses the built-in key. */
export const readAppConfig = (env: NodeJS.ProcessEnv = process.env): PublisherAppConfig =>
  requireOperatorKeys(readConfig(env));
