import type { EntityManager } from 'typeorm';

/**
 * Takes transaction-scoped advisory locks on some strings of a namespace, in sorted order (so two
 * writers wanting the same strings never deadlock on them). Held until the transaction ends:
 * what no row can guard yet (a code about to be created, a unique value about to be claimed).
 */
export async function lockStrings(m: EntityManager, namespace: string, values: Iterable<string>): Promise<void> {
  const sorted = [...new Set(values)].sort();
  if (sorted.length === 0) return;
  await m.query(
    `SELECT pg_advisory_xact_lock(hashtext($1 || s.v)) FROM (SELECT v FROM unnest($2::text[]) AS v ORDER BY v) AS s`,
    [`${namespace}:`, sorted],
  );
}
