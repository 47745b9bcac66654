import type { RunningPlatform } from '../../../tools/start';
import type { PlannedKill } from './schedule';

/** A kill as it happened. */
export interface DoneKill extends PlannedKill {
  /** When it was sent, from the start of the chaos. */
  sentAtMs: number;
  /** Why it could not be done (nats-server that did not start again). */
  error?: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Sends the planned SIGKILLs on time. Apps come back through supervision; nats-server is started
 * again here after its down time (on its port and store). `before` may hold a kill back for its
 * moment (a gateway kill waits for a request in flight). Resolves after the last kill (and the last
 * nats-server restart).
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
    log(`  ${(sentAtMs / 1000).toFixed(1)} s  SIGKILL ${kill.target}${kill.downMs ? ` (down ${kill.downMs} ms)` : ''}`);
    if (kill.target !== 'nats') {
      platform.kill(kill.target, 'SIGKILL');
      done.push({ ...kill, sentAtMs });
      continue;
    }
    platform.kill('nats', 'SIGKILL');
    await sleep(kill.downMs ?? 0);
    try {
      await platform.restart('nats');
      done.push({ ...kill, sentAtMs });
    } catch (err) {
      done.push({ ...kill, sentAtMs, error: (err as Error).message });
    }
  }
  return done;
}
