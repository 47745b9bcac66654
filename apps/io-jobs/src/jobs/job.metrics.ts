import { Counter, type Registry } from 'prom-client';

/** How a run of an import's or an export's job ended. */
export type JobOutcome = 'completed' | 'completed_with_errors' | 'failed' | 'retried' | 'stopped';

const NAME = 'pim_io_jobs_jobs_total';

/**
 * `pim_io_jobs_jobs_total{kind, outcome}` on the app's registry (one counter, shared by the import
 * and export runners): kind `import` or `export`; outcome `completed`, `completed_with_errors`
 * (an import with refused rows), `failed` (for good), `retried` (this try failed; the queue runs
 * it again) or `stopped` (an import canceled or taken over while it ran).
 */
export function jobOutcomes(registry: Registry): Counter<'kind' | 'outcome'> {
  return (
    (registry.getSingleMetric(NAME) as Counter<'kind' | 'outcome'> | undefined) ??
    new Counter({
      name: NAME,
      help: 'Import and export job runs by kind and outcome',
      labelNames: ['kind', 'outcome'],
      registers: [registry],
    })
  );
}
