import { Gauge, type Registry } from 'prom-client';
import type { DataSource } from 'typeorm';

/** What a pg Pool shows of itself (pg's `Pool`: totalCount, idleCount, waitingCount, options.max). */
export interface PoolLike {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options?: { max?: number };
}

/** A pool to watch: its label and how to reach it (undefined while it does not exist: no series). */
export interface WatchedPool {
  name: string;
  pool: () => PoolLike | undefined;
}

/** The pg Pool of a TypeORM postgres DataSource (`driver.master`), once it is initialized. */
export function pgPoolOf(ds: DataSource): PoolLike | undefined {
  if (!ds.isInitialized) return undefined;
  return (ds.driver as unknown as { master?: PoolLike }).master;
}

const GAUGES: { name: string; help: string; read: (p: PoolLike) => number | undefined }[] = [
  { name: 'pim_db_pool_connections', help: 'Open connections of the pool', read: (p) => p.totalCount },
  { name: 'pim_db_pool_idle_connections', help: 'Open connections nobody uses now', read: (p) => p.idleCount },
  {
    name: 'pim_db_pool_waiting_queries',
    help: 'Queries (checkouts) waiting for a free connection',
    read: (p) => p.waitingCount,
  },
  {
    name: 'pim_db_pool_max_connections',
    help: 'Largest number of connections of the pool',
    read: (p) => p.options?.max,
  },
];

/**
 * Gauges of Postgres pools, labelled `pool`, read from the pools at each scrape (no query). Pools
 * added to a registry that already watches some are watched beside them.
 */
export function watchPools(registry: Registry, pools: WatchedPool[]): void {
  const watched = watchedOf(registry);
  for (const p of pools) watched.set(p.name, p.pool);
  if (registry.getSingleMetric(GAUGES[0].name)) return;
  for (const g of GAUGES) {
    new Gauge({
      name: g.name,
      help: g.help,
      labelNames: ['pool'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [name, get] of watched) {
          const pool = get();
          const value = pool ? g.read(pool) : undefined;
          if (value !== undefined) this.set({ pool: name }, value);
        }
      },
    });
  }
}

const byRegistry = new WeakMap<Registry, Map<string, () => PoolLike | undefined>>();

function watchedOf(registry: Registry): Map<string, () => PoolLike | undefined> {
  let watched = byRegistry.get(registry);
  if (!watched) {
    watched = new Map();
    byRegistry.set(registry, watched);
  }
  return watched;
}
