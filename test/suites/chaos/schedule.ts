import { CRASH_LOOP_LIMIT, STABLE_MS } from '../../../tools/start/platform';
import type { Random } from './random';

/** One planned SIGKILL: of a replica (`catalog-2`), of every replica of an app (`gateway`), or of nats-server. */
export interface PlannedKill {
  /** When, from the start of the chaos. */
  atMs: number;
  /** The app, replica or `nats`, as `RunningPlatform.kill` names it. */
  target: string;
  /** The kind it counts under: the app's name, or `nats`. */
  kind: string;
}

/** What the plan is made from. */
export interface KillPlanOptions {
  durationMs: number;
  /** Pause between two kills: a random time in [min, max] ms. */
  everyMs: [number, number];
  /** The replica names of each app, the first first (`RunningPlatform.replicas`). */
  replicas: Record<string, string[]>;
  /** The chance that a kill of a replicated app takes every replica at once. */
  allReplicasChance: number;
}

/**
 * Kills of one replica in a row, each soon after its restart, that the plan allows: supervision
 * (`restart: 'on-crash'`) gives up at CRASH_LOOP_LIMIT, which must stay a real defect's signal.
 */
export const MAX_KILLS_IN_A_ROW = CRASH_LOOP_LIMIT - 2;
/** A replica killed this long after its previous kill had run stably (its restart delay included). */
const STABLE_AFTER_KILL_MS = STABLE_MS + 5_000;

/**
 * The SIGKILLs of a run, from its seed alone: rounds in which every app and nats-server is killed
 * once, in a random order, at random intervals; a replicated app loses one of its extra replicas
 * (now and then all of them at once, the first with them). A replica is left out of a round while
 * another kill would make it crash too often in a row for supervision.
 */
export function planKills(random: Random, opts: KillPlanOptions): PlannedKill[] {
  const kinds = [...Object.keys(opts.replicas), 'nats'];
  const inARow = new Map<string, { at: number; count: number }>();
  const countIfKilled = (replica: string, at: number) => {
    const last = inARow.get(replica);
    return last && at - last.at < STABLE_AFTER_KILL_MS ? last.count + 1 : 1;
  };
  const plan: PlannedKill[] = [];
  let at = 0;
  let round: string[] = [];
  for (;;) {
    at += random.int(...opts.everyMs);
    if (at >= opts.durationMs) return plan;
    if (round.length === 0) round = random.shuffle(kinds);
    const kind = round.shift()!;
    if (kind === 'nats') {
      // Supervision starts nats-server again as it does an app, and gives up on it the same way.
      const count = countIfKilled(kind, at);
      if (count > MAX_KILLS_IN_A_ROW) continue;
      inARow.set(kind, { at, count });
      plan.push({ atMs: at, target: 'nats', kind });
      continue;
    }
    // The first replica bears the app's name, which kills every replica: alone, only the others can go.
    const all = opts.replicas[kind];
    const fits = (r: string) => countIfKilled(r, at) <= MAX_KILLS_IN_A_ROW;
    const singles = all.slice(1).filter(fits);
    const every = all.every(fits) && (all.length === 1 || random.chance(opts.allReplicasChance));
    if (!every && singles.length === 0) continue;
    const victims = every ? all : [random.pick(singles)];
    for (const r of victims) inARow.set(r, { at, count: countIfKilled(r, at) });
    plan.push({ atMs: at, target: every ? kind : victims[0], kind });
  }
}

/** Kills by kind (app name or `nats`). */
export function killsByKind(kills: readonly PlannedKill[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of kills) out[k.kind] = (out[k.kind] ?? 0) + 1;
  return out;
}
