import type { RunningPlatform } from '../../../tools/start';
import type { PlannedKill } from './schedule';
import { canConnect } from '../../../tools/start/ports';

/** A kill as it happened. */
export interface DoneKill extends PlannedKill {
  /** When it was sent, from the start of the chaos. */
  sentAtMs: number;
  /** Why it could not be done (nats-server that did not start again). */
  error?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** How long supervision has to bring a killed nats-server back (its first restart waits ~0.5 s). */
const NATS_BACK_MS = 30_000;

/** Milliseconds until the nats-server at `url` was gone and then listened again, or undefined past NATS_BACK_MS. */
async function natsBack(url: string): Promise<number | undefined> {
  const { hostname, port } = new URL(url);
  const started = Date.now();
  let gone = false;
  while (Date.now() - started < NATS_BACK_MS) {
    const open = await canConnect(hostname, Number(port));
    if (!open) gone = true;
    else if (gone) return Date.now() - started;
    await sleep(50);
  }
  return undefined;
}

/**
 * Sends the planned SIGKILLs on time. Apps and nats-server come back through supervision (nats-server
 * on its port and store); after a nats-server kill this waits for it to listen again, and notes
 * when it does not within NATS_BACK_MS. `before` may hold a kill back for its moment (a gateway kill
 * waits for a request in flight). Resolves after the last kill (and nats-server back).
 */
export async function runKills(
  platform: RunningPlatform,
  plan: readonly PlannedKill[],
  log: (line: string) => void,
  before: (kill: PlannedKill) => Promise<void> = async () => undefined,
): Promise<DoneKill[]> {
  const started = Date.now();
  const done: DoneKill[] = [];
  for (const kill of plan) {
    const wait = kill.atMs - (Date.now() - started);
    if (wait > 0) await sleep(wait);
    await before(kill);
    const sentAtMs = Date.now() - started;
    log(`  ${(sentAtMs / 1000).toFixed(1)} s  SIGKILL ${kill.target}`);
    if (kill.target !== 'nats') {
      platform.kill(kill.target, 'SIGKILL');
      done.push({ ...kill, sentAtMs });
      continue;
    }
    platform.kill('nats', 'SIGKILL');
    const back = await natsBack(platform.natsUrl);
    if (back === undefined)
      done.push({ ...kill, sentAtMs, error: `not listening again ${NATS_BACK_MS / 1000} s after the kill` });
    else {
      log(`  ${(sentAtMs / 1000).toFixed(1)} s  nats-server back after ${back} ms`);
      done.push({ ...kill, sentAtMs });
    }
  }
  return done;
}
