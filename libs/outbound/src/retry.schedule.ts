const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;

/** Longest wait a receiver's Retry-After can impose: the longest step of the default schedule. */
export const MAX_RETRY_AFTER_MS = 10 * 3_600_000;

/** Parses "5s,5m,30m,2h" into milliseconds; throws on anything else. */
export function parseSchedule(text: string): number[] {
  const parts = text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new Error('the retry schedule needs at least one delay, e.g. 5s,5m,30m');
  return parts.map((p) => {
    const m = DURATION.exec(p);
    if (!m) throw new Error(`"${p}" is not a duration (use a number with ms, s, m or h)`);
    return Math.round(Number(m[1]) * UNIT_MS[m[2]]);
  });
}

/**
 * The delay before the next attempt after `failedAttempts` failures since the last (re)queue, or
 * null when the schedule is exhausted. The delay is spread uniformly by ±jitter.
 */
export function nextDelay(
  schedule: number[],
  failedAttempts: number,
  jitter: number,
  random: () => number = Math.random,
): number | null {
  if (failedAttempts < 1 || failedAttempts > schedule.length) return null;
  const base = schedule[failedAttempts - 1];
  return Math.max(0, Math.round(base * (1 - jitter + 2 * jitter * random())));
}

/**
 * Milliseconds a Retry-After header asks for (delta-seconds or an HTTP date), capped at
 * MAX_RETRY_AFTER_MS; null when absent or unreadable.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | null {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return null;
  const text = raw.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1_000;
  else {
    const at = Date.parse(text);
    if (Number.isNaN(at)) return null;
    ms = at - now;
  }
  return Math.min(MAX_RETRY_AFTER_MS, Math.max(0, ms));
}
