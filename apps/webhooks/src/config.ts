import { z } from 'zod';
import { flag, loadConfig, ownerSchema, port, positiveInt } from '@pim/config';
import { allowListSetting, scheduleSetting } from '@pim/outbound';
import { requireOperatorKeys, secretsKeysSetting, type WithOperatorKeys } from '@pim/secrets';

const DEFAULT_SCHEDULE = '5s,5m,30m,2h,5h,10h,10h';

/** Environment of the webhooks app. */
export const webhooksConfigSchema = ownerSchema.extend({
  WEBHOOKS_GRPC_PORT: port(50057),
  /** Run the fan-out consumer (events → deliveries) in this process. */
  WEBHOOKS_FANOUT: flag(true),
  /** Run the delivery worker (deliveries → HTTP) in this process. */
  WEBHOOKS_DELIVERY: flag(true),
  /** Durable JetStream consumer shared by every replica's fan-out. */
  WEBHOOKS_FANOUT_CONSUMER: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('webhooks-fanout'),
  /** How long JetStream waits for the fan-out's ack before handing an event out again (set when the consumer is created). */
  WEBHOOKS_FANOUT_ACK_WAIT_MS: positiveInt(30_000),
  /** Delays before each retry: durations with ms, s, m or h, comma-separated. */
  WEBHOOKS_RETRY_SCHEDULE: scheduleSetting(DEFAULT_SCHEDULE),
  /** Each retry delay is spread by ±this fraction so receivers are not hit in waves. */
  WEBHOOKS_RETRY_JITTER: z.coerce.number().min(0).max(1).default(0.2),
  /** Time-out of one delivery request, connect to end of body (docs/platform/rules.md: limits). */
  WEBHOOKS_TIMEOUT_MS: positiveInt(10_000),
  /** Requests in flight per process. */
  WEBHOOKS_CONCURRENCY: positiveInt(64),
  /** Requests in flight to one webhook across every replica. */
  WEBHOOKS_PER_WEBHOOK_CONCURRENCY: positiveInt(16),
  /** How long a claimed delivery stays reserved without a renewal. */
  WEBHOOKS_LEASE_MS: positiveInt(30_000),
  /** Claim polling when no notification arrives. */
  WEBHOOKS_POLL_MS: positiveInt(1_000),
  /** CIDR ranges delivery may reach although they are private, e.g. 127.0.0.0/8,::1/128. */
  WEBHOOKS_ALLOWED_TARGETS: allowListSetting(),
  /** How long the previous secret keeps signing after a rotation. */
  WEBHOOKS_SECRET_OVERLAP_MS: positiveInt(24 * 3_600_000),
  /** Bytes of a receiver's answer kept in the delivery log. */
  WEBHOOKS_RESPONSE_BODY_MAX: positiveInt(2_048),
  /** Finished deliveries, their attempts and events are kept this long; at least 8, so the inbox outlives the stream's 7 days. */
  WEBHOOKS_RETENTION_DAYS: z.coerce.number().int().min(8).default(30),
  /** Prometheus metrics on http://0.0.0.0:<port>/metrics; 0 turns them off. */
  WEBHOOKS_METRICS_PORT: port(9464),
  /** Operator keys that seal the signing secrets at rest: `id:base64key,…`, the current key first. */
  PIM_SECRETS_KEYS: secretsKeysSetting(),
});

/** Parsed environment of the webhooks app. */
export type WebhooksConfig = z.infer<typeof webhooksConfigSchema>;

/** Reads and validates the environment once (the migrations read it so: they need no operator key). */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): WebhooksConfig =>
  loadConfig(webhooksConfigSchema, env);

/** The environment the app serves with: its operator keys settled. */
export type WebhooksAppConfig = WithOperatorKeys<WebhooksConfig>;

/** readConfig, then the operator keys: unset, production refuses to start and development uses the built-in key. */
export const readAppConfig = (env: NodeJS.ProcessEnv = process.env): WebhooksAppConfig =>
  requireOperatorKeys(readConfig(env));
