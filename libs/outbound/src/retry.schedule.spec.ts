import { MAX_RETRY_AFTER_MS, nextDelay, parseRetryAfter, parseSchedule } from './retry.schedule';

describe('retry schedule', () => {
  it('parses the default schedule of docs/platform/rules.md (events)', () => {
    expect(parseSchedule('5s,5m,30m,2h,5h,10h,10h')).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
    expect(parseSchedule(' 50ms, 1.5s ')).toEqual([50, 1_500]);
  });

  it('rejects what is not a duration', () => {
    expect(() => parseSchedule('')).toThrow('at least one delay');
    expect(() => parseSchedule('5s,soon')).toThrow('"soon" is not a duration');
    expect(() => parseSchedule('5')).toThrow('"5" is not a duration');
  });

  it('gives the n-th delay spread by the jitter, then null when exhausted', () => {
    const schedule = [1_000, 60_000];
    expect(nextDelay(schedule, 1, 0.2, () => 0)).toBe(800);
    expect(nextDelay(schedule, 1, 0.2, () => 1)).toBe(1_200);
    expect(nextDelay(schedule, 2, 0.2, () => 0.5)).toBe(60_000);
    expect(nextDelay(schedule, 2, 0, () => 0.9)).toBe(60_000);
    expect(nextDelay(schedule, 3, 0.2)).toBeNull();
    expect(nextDelay(schedule, 0, 0.2)).toBeNull();
    for (let i = 0; i < 100; i++) {
      const d = nextDelay(schedule, 1, 0.2)!;
      expect(d).toBeGreaterThanOrEqual(800);
      expect(d).toBeLessThanOrEqual(1_200);
    }
  });

  it('reads Retry-After as seconds or an HTTP date, capped, ignoring garbage', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(['3'], now)).toBe(3_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('999999999', now)).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRetryAfter('later', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
