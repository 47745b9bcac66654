import { Counter, type Registry } from 'prom-client';

const NAME = 'pim_publisher_publications_total';

/**
 * `pim_publisher_publications_total{outcome}` on the app's registry: each request's outcome as the
 * sender wrote it — `published` (the channel accepted it), `failed` (for good: refused, the
 * channel gone or disabled, or retries used up) or `retried` (a timeout, network error or 5xx;
 * another attempt is scheduled).
 */
export function publicationOutcomes(registry: Registry): Counter<'outcome'> {
  return (
    (registry.getSingleMetric(NAME) as Counter<'outcome'> | undefined) ??
    new Counter({
      name: NAME,
      help: 'Publication attempts by outcome (published, failed, retried)',
      labelNames: ['outcome'],
      registers: [registry],
    })
  );
}
