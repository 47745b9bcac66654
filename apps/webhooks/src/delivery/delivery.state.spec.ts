import type { AttemptResult } from './delivery.sender';
import { nextState } from './deliveries.repository';

const result = (outcome: AttemptResult['outcome'], extra: Partial<AttemptResult> = {}): AttemptResult => ({
  outcome,
  startedAt: new Date(),
  durationMs: 5,
  ...extra,
});
const schedule = [100, 1_000, 10_000];
const delayFor = (n: number) => (n >= 1 && n <= schedule.length ? schedule[n - 1] : null);

describe('the state an attempt leaves its delivery in', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('succeeds on success and fails for good on 410 Gone', () => {
    expect(nextState(result('success'), 1, delayFor, now)).toEqual({ status: 'succeeded', nextAttemptAt: null });
    expect(nextState(result('gone', { statusCode: 410 }), 1, delayFor, now)).toEqual({
      status: 'failed',
      nextAttemptAt: null,
    });
  });

  it('follows the schedule after each failure, then fails once it is exhausted', () => {
    for (const outcome of ['http_error', 'timeout', 'network_error', 'blocked', 'interrupted'] as const) {
      expect(nextState(result(outcome), 1, delayFor, now)).toEqual({
        status: 'pending',
        nextAttemptAt: new Date(now + 100),
      });
      expect(nextState(result(outcome), 3, delayFor, now)).toEqual({
        status: 'pending',
        nextAttemptAt: new Date(now + 10_000),
      });
      expect(nextState(result(outcome), 4, delayFor, now)).toEqual({ status: 'failed', nextAttemptAt: null });
    }
  });

  it('waits as long as Retry-After asks on 429/503, still within the attempt limit', () => {
    expect(nextState(result('rate_limited', { retryAfterMs: 7_000 }), 1, delayFor, now)).toEqual({
      status: 'pending',
      nextAttemptAt: new Date(now + 7_000),
    });
    expect(nextState(result('rate_limited'), 2, delayFor, now)).toEqual({
      status: 'pending',
      nextAttemptAt: new Date(now + 1_000),
    });
    expect(nextState(result('rate_limited', { retryAfterMs: 7_000 }), 4, delayFor, now)).toEqual({
      status: 'failed',
      nextAttemptAt: null,
    });
  });
});
