import { newSeed } from './random';

/** How long and how rough a chaos run is; every field has a default (see `chaosOptions`). */
export interface ChaosOptions {
  /** Seeds the kill plan, the writer's choices and the receiver's answers; printed so a run can be replayed. */
  seed: number;
  /** How long the writer writes while processes are killed. */
  durationMs: number;
  /** Writer lanes: sequences of writes running side by side, each on records of its own. */
  lanes: number;
  /** A lane's pause between two operations: a random time in [min, max] ms. */
  pauseMs: [number, number];
  /** Pause between two kills: a random time in [min, max] ms. */
  killEveryMs: [number, number];
  /** Processes per app (`startPlatform`'s `replicas`). */
  replicas: Record<string, number>;
  /** The chance that a kill of a replicated app takes every replica at once. */
  allReplicasChance: number;
  /** How long one write may keep being retried before the writer gives up on it. */
  writeDeadlineMs: number;
  /** How long the platform may take to settle (everything up, outboxes drained, jobs done) after the chaos. */
  settleTimeoutMs: number;
  /** Products an export selects (made before the chaos, never changed). */
  exportProducts: number;
  /** Rows of each import (two of them refused on purpose). */
  importRows: number;
  /** Progress lines; none by default. */
  log: (line: string) => void;
}

/** Defaults: about a minute of chaos, as the CI slice runs it. */
export const DEFAULT_CHAOS: Omit<ChaosOptions, 'seed' | 'log'> = {
  durationMs: 40_000,
  lanes: 3,
  pauseMs: [20, 200],
  killEveryMs: [1_200, 3_000],
  replicas: { gateway: 2, webhooks: 2 },
  allReplicasChance: 0.3,
  writeDeadlineMs: 90_000,
  settleTimeoutMs: 120_000,
  exportProducts: 30,
  importRows: 40,
};

/** The seed to replay from `CHAOS_SEED`, else a new one. */
export function seedFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.CHAOS_SEED;
  if (raw === undefined || raw === '') return newSeed();
  const seed = Number(raw);
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`CHAOS_SEED must be a non-negative integer, not '${raw}'`);
  return seed;
}

/** Options over the defaults, the seed from `CHAOS_SEED` unless given. */
export function chaosOptions(over: Partial<ChaosOptions> = {}): ChaosOptions {
  return {
    ...DEFAULT_CHAOS,
    seed: seedFromEnv(),
    log: () => undefined,
    ...over,
  };
}
