import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TRACING_VARIABLES, readTracingEnv } from '@pim/logging';
import { ROOT } from './render';

/** What the manifests must agree with about one app, read from the app's own code. */
export interface AppFacts {
  /** The folder under apps/, the APP the image runs, the objects' names. */
  name: string;
  /** Prefix of its own settings: `IO_JOBS` for io-jobs (`IO_JOBS_GRPC_PORT`, `IO_JOBS_GRPC_URL`). */
  envPrefix: string;
  /** gRPC apps serve grpc.health.v1; the HTTP app (the gateway) serves /healthz and /readyz. */
  kind: 'grpc' | 'http';
  /** The variable of the port it serves on (`CATALOG_GRPC_PORT`, `PORT`) and its default. */
  portVar: string;
  defaultPort: number;
  /** The variable of its metrics port (`<APP>_METRICS_PORT`). */
  metricsVar: string;
  /** Every environment variable it reads: its config schema's keys and any read beside it. */
  reads: string[];
  /** What the config schema fills in for an unset variable (absent: no default). */
  defaults: Record<string, unknown>;
  /** The apps it calls (it reads their `<APP>_GRPC_URL`). */
  calls: string[];
  /** Validates settings as the app would at start-up; returns the problems (`VAR: message`). */
  validate: (env: Record<string, string>) => string[];
  /** Whether apps/<name>/src/main.ts and migrate.ts exist (the image runs one or the other). */
  hasMain: boolean;
  hasMigrate: boolean;
}

/** The part of a zod object schema this reads (duck-typed: no zod import needed here). */
interface ObjectSchema {
  shape: Record<string, unknown>;
  safeParse(input: unknown): { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } };
}

function isObjectSchema(value: unknown): value is ObjectSchema {
  const v = value as Partial<ObjectSchema> | null;
  return typeof v === 'object' && v !== null && typeof v.shape === 'object' && typeof v.safeParse === 'function';
}

/** The one `export const <x>ConfigSchema` of an app's config.ts. */
function configSchemaOf(app: string, mod: Record<string, unknown>): ObjectSchema {
  const found = Object.entries(mod).filter(([key, value]) => key.endsWith('ConfigSchema') && isObjectSchema(value));
  if (found.length !== 1) throw new Error(`apps/${app}/src/config.ts must export one <app>ConfigSchema`);
  return found[0][1] as ObjectSchema;
}

/** Default of one setting, as the schema fills it when the variable is unset. */
function defaultOf(schema: ObjectSchema, key: string): unknown {
  const field = schema.shape[key] as { safeParse(v: unknown): { success: boolean; data?: unknown } };
  const parsed = field.safeParse(undefined);
  return parsed.success ? parsed.data : undefined;
}

/**
 * Variables an app reads outside its config schema. Every app reads the tracing variables
 * (`startTracing` of @pim/logging, called by runApp and by the gateway's main.ts). The gateway
 * also reads the address of each owner app whose routes it serves through the route factory from
 * `addressEnv` (apps/gateway/src/main.ts).
 */
async function readsBesideSchema(app: string, tracingVariables: readonly string[]): Promise<string[]> {
  if (app !== 'gateway') return [...tracingVariables];
  const owners = (await import(join(ROOT, 'apps', 'gateway', 'src', 'routes', 'owners.ts'))) as {
    OWNER_ROUTES: { addressEnv: string }[];
  };
  return [...tracingVariables, ...owners.OWNER_ROUTES.map((o) => o.addressEnv)];
}

/** What tracing would refuse at start-up in these settings (`VAR: message`), as the apps read them. */
function tracingIssues(env: Record<string, string>): string[] {
  try {
    readTracingEnv(env);
    return [];
  } catch (err) {
    return [(err as Error).message.replace(/^Invalid configuration: /, '')];
  }
}

/**
 * The apps of the repository (every apps/<name>/src/config.ts), with what their code says.
 * `tracingVariables`: the OTEL_* variables every app reads (tests pass a longer list to see that a
 * variable added to @pim/logging's list must be considered in the manifests).
 */
export async function loadAppFacts(tracingVariables: readonly string[] = TRACING_VARIABLES): Promise<AppFacts[]> {
  const names = readdirSync(join(ROOT, 'apps'), { withFileTypes: true })
    .filter((d) => d.isDirectory() && existsSync(join(ROOT, 'apps', d.name, 'src', 'config.ts')))
    .map((d) => d.name)
    .sort();
  const loaded = await Promise.all(
    names.map(async (name) => {
      const src = join(ROOT, 'apps', name, 'src');
      const schema = configSchemaOf(name, (await import(join(src, 'config.ts'))) as Record<string, unknown>);
      const beside = await readsBesideSchema(name, tracingVariables);
      const reads = [...new Set([...Object.keys(schema.shape), ...beside])].sort();
      return { name, src, schema, reads };
    }),
  );
  const prefixOf = (name: string) => name.toUpperCase().replace(/-/g, '_');
  return loaded.map(({ name, src, schema, reads }) => {
    const envPrefix = prefixOf(name);
    const grpcPortVar = `${envPrefix}_GRPC_PORT`;
    const kind = reads.includes(grpcPortVar) ? 'grpc' : 'http';
    const portVar = kind === 'grpc' ? grpcPortVar : 'PORT';
    const metricsVar = `${envPrefix}_METRICS_PORT`;
    if (!reads.includes(portVar)) throw new Error(`apps/${name}: its config reads neither ${grpcPortVar} nor PORT`);
    if (!reads.includes(metricsVar)) throw new Error(`apps/${name}: its config does not read ${metricsVar}`);
    const calls = loaded
      .filter((other) => other.name !== name && reads.includes(`${prefixOf(other.name)}_GRPC_URL`))
      .map((other) => other.name);
    return {
      name,
      envPrefix,
      kind,
      portVar,
      defaultPort: Number(defaultOf(schema, portVar)),
      metricsVar,
      reads,
      defaults: Object.fromEntries(
        Object.keys(schema.shape)
          .map((key) => [key, defaultOf(schema, key)] as const)
          .filter(([, value]) => value !== undefined),
      ),
      calls,
      validate: (env: Record<string, string>) => {
        const result = schema.safeParse(env);
        const issues = result.success
          ? []
          : (result.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);
        return [...issues, ...tracingIssues(env)];
      },
      hasMain: existsSync(join(src, 'main.ts')),
      hasMigrate: existsSync(join(src, 'migrate.ts')),
    };
  });
}

/** Extensions the apps' migrations create (`CREATE EXTENSION IF NOT EXISTS <name>`), sorted. */
export function extensionsInMigrations(): string[] {
  const found = new Set<string>();
  for (const app of readdirSync(join(ROOT, 'apps'))) {
    const dir = join(ROOT, 'apps', app, 'src', 'migrations');
    if (!existsSync(dir)) continue;
    for (const file of readdirSync(dir).filter((f) => f.endsWith('.ts'))) {
      for (const m of readFileSync(join(dir, file), 'utf8').matchAll(/CREATE EXTENSION IF NOT EXISTS "?(\w+)"?/gi)) {
        found.add(m[1].toLowerCase());
      }
    }
  }
  return [...found].sort();
}
