import { z } from 'zod';

/** Thrown when the environment does not satisfy an app's schema; the message names every bad variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  constructor(readonly problems: { variable: string; message: string }[]) {
    super(`Invalid configuration: ${problems.map((p) => `${p.variable}: ${p.message}`).join('; ')}`);
  }
}

/** Parses and validates the environment once; throws ConfigError naming each bad variable. */
export function loadConfig<S extends z.ZodObject>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const result = schema.safeParse(env);
  if (result.success) return result.data;
  const problems = result.error.issues.map((issue) => {
    const variable = issue.path.length > 0 ? issue.path.join('.') : '(environment)';
    const name = issue.path.length > 0 ? String(issue.path[0]) : undefined;
    const got = name === undefined || isSensitive(schema, name) ? undefined : env[name];
    const message = got === undefined ? issue.message : `${issue.message} (got ${JSON.stringify(got)})`;
    return { variable, message };
  });
  throw new ConfigError(problems);
}

/** Marks a setting whose value an error must never repeat (a key, a password): its problems name it only. */
export const sensitive = <T extends z.ZodType>(schema: T): T => schema.meta({ sensitive: true }) as T;

function isSensitive(schema: z.ZodObject, name: string): boolean {
  const field = schema.shape[name] as z.ZodType | undefined;
  return field?.meta()?.sensitive === true;
}

/** A TCP port number from a string variable. */
export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

/** A boolean from "true"/"false"/"1"/"0". */
export const flag = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .default(fallback ? 'true' : 'false')
    .transform((v) => v === 'true' || v === '1');

/** A positive integer from a string variable. */
export const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

/** Variables every app reads: where Postgres and NATS are, how to log. */
export const baseSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).default('postgres://postgres@127.0.0.1:5432/pim'),
  NATS_URL: z.string().min(1).default('nats://127.0.0.1:4222'),
  PIM_EVENTS_STREAM: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .default('PIM_EVENTS'),
  GRPC_DEADLINE_MS: positiveInt(10_000),
  SHUTDOWN_GRACE_MS: positiveInt(10_000),
  /** Connections in this process's main database pool (unset: the app's own, 10; the gateway's 20, webhooks' 16). */
  DB_POOL_SIZE: z.coerce.number().int().positive().max(100).optional(),
});

/** Variables every app that owns records reads besides the base ones: its events and their relay. */
export const ownerSchema = baseSchema.extend({
  /** Prefix of every subject this app publishes on (tests use one of their own); empty or ending with a dot. */
  PIM_SUBJECT_PREFIX: z
    .string()
    .regex(/^([a-z0-9_-]+\.)?$/i, 'must be empty or end with a dot')
    .default(''),
  /** Run the outbox relay (publishes this app's events) in this process. */
  OUTBOX_RELAY: flag(true),
  /** Longest pause of the relay after repeated publish failures (NATS away), and of one event between its attempts. */
  OUTBOX_MAX_BACKOFF_MS: positiveInt(30_000),
  /** Failed publishes after which an event is set aside as a dead letter (its record's later events wait behind it). */
  OUTBOX_MAX_ATTEMPTS: positiveInt(10),
  /** Deliveries after which an event one of the app's consumers keeps failing on is set aside as a dead letter. */
  CONSUMER_MAX_DELIVER: positiveInt(20),
});
