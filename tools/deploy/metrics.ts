// What the apps register on their Prometheus registries, read from the code that registers it: each
// module that defines metrics is run against a fresh registry the way the kit and the apps run it,
// and the registry says what it holds (names, types, label names). No metric name is listed here.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { DataSource } from 'typeorm';
import { watchPools } from '@pim/db';
import { ConsumerLagMetrics, OutboxMetrics } from '@pim/events';
import type { Logger } from '@pim/logging';
import { GrpcServerMetrics } from '@pim/rpc';
import { ROOT } from './render';

/** A metric as a registry holds it. */
export interface RegisteredMetric {
  name: string;
  type: 'counter' | 'gauge' | 'histogram' | 'summary';
  labels: string[];
  /** One of prom-client's default process metrics (CPU, memory, event loop…), prefixed per app. */
  process: boolean;
}

/** A module that defines metrics, and how it puts them on a registry. */
interface Registrar {
  /** The source files (from the repository's root) whose metrics `register` creates. */
  files: string[];
  register: (registry: Registry, apps: string[]) => unknown;
  /** Registers prom-client's default process metrics. */
  process?: boolean;
}

/**
 * A module of an app that builds its metrics from a registry with its export `name` (a class, or a
 * function). Tools reach apps by path, as apps.ts does: apps are not libs.
 */
function appRegistrar(file: string, name: string, kind: 'class' | 'function'): Registrar {
  return {
    files: [file],
    register: async (registry) => {
      const made = ((await import(join(ROOT, file))) as Record<string, unknown>)[name];
      if (typeof made !== 'function') throw new Error(`${file} exports no ${name}`);
      return kind === 'class'
        ? new (made as new (r: Registry) => unknown)(registry)
        : (made as (r: Registry) => unknown)(registry);
    },
  };
}

/**
 * Every module that registers metrics. The outbox metrics read only the DataSource's schema when
 * built (their queries run at scrape time, which never comes here). The default process metrics
 * are prefixed with the app's name, `-` as `_` (runApp in libs/app for the gRPC apps, the
 * gateway's main.ts for the gateway: `pim_io_jobs_`, `pim_gateway_`).
 */
const REGISTRARS: Registrar[] = [
  { files: ['libs/rpc/src/metrics.ts'], register: (r) => new GrpcServerMetrics(r) },
  { files: ['libs/db/src/pool.metrics.ts'], register: (r) => watchPools(r, []) },
  { files: ['libs/events/src/consumer.metrics.ts'], register: (r) => ConsumerLagMetrics.on(r) },
  {
    files: ['libs/events/src/outbox.metrics.ts'],
    register: (r) =>
      new OutboxMetrics({
        registry: r,
        dataSource: { options: { type: 'postgres', schema: 'app' } } as unknown as DataSource,
        logger: {} as Logger,
      }),
  },
  appRegistrar('apps/gateway/src/http/metrics.ts', 'HttpMetrics', 'class'),
  appRegistrar('apps/webhooks/src/metrics/metrics.ts', 'WebhookMetrics', 'class'),
  appRegistrar('apps/io-jobs/src/jobs/job.metrics.ts', 'jobOutcomes', 'function'),
  appRegistrar('apps/publisher/src/sender/publication.metrics.ts', 'publicationOutcomes', 'function'),
  {
    files: ['libs/app/src/run-app.ts', 'apps/gateway/src/main.ts'],
    process: true,
    register: (r, apps) => {
      for (const app of apps) collectDefaultMetrics({ register: r, prefix: `pim_${app.replace(/-/g, '_')}_` });
    },
  },
];

/** The modules REGISTRARS reads (paths from the repository's root). */
export const REGISTERING_FILES = REGISTRARS.flatMap((r) => r.files).sort();

/** Every metric the apps register (`apps`: the app names, for the prefixed process metrics), by name. */
export async function registeredMetrics(apps: string[]): Promise<Map<string, RegisteredMetric>> {
  const metrics = new Map<string, RegisteredMetric>();
  for (const r of REGISTRARS) {
    const registry = new Registry();
    await r.register(registry, apps);
    for (const m of registry.getMetricsAsArray() as unknown as Omit<RegisteredMetric, 'process'>[]) {
      const labels = [...((m as { labelNames?: string[] }).labelNames ?? [])];
      metrics.set(m.name, { name: m.name, type: m.type, labels, process: r.process === true });
    }
  }
  return metrics;
}

/**
 * Source files of apps/ and libs/ (tests aside) that create prom-client metrics or the default
 * process metrics: each must be one REGISTRARS reads, or the dashboard check would not know its
 * metrics.
 */
export function filesRegisteringMetrics(): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!['node_modules', 'testing', 'gen'].includes(entry.name)) walk(path);
      } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts')) {
        const text = readFileSync(path, 'utf8');
        if (/new (Counter|Gauge|Histogram|Summary)\s*[<(]|collectDefaultMetrics\(/.test(text)) {
          found.push(relative(ROOT, path));
        }
      }
    }
  };
  for (const top of ['apps', 'libs']) walk(join(ROOT, top));
  return found.sort();
}
