import { runConservation, type ConservationReport } from '../../tools/bench/conservation';

// Issue 5's conservation test at a size that keeps CI fast; `npm run bench` runs it with 2,000 events.
describe('conservation: nothing is lost when the worker, the relay and NATS are SIGKILLed at random', () => {
  let report: ConservationReport;

  beforeAll(async () => {
    report = await runConservation({
      events: 300,
      concurrency: 6,
      ratePerSecond: 20,
      killEveryMs: [300, 900],
      downMs: [50, 500],
      settleTimeoutMs: 90_000,
    });
  }, 240_000);

  it('killed each of them while events were produced through the API', () => {
    expect(report.writes).toBe(300);
    expect(report.kills.worker).toBeGreaterThanOrEqual(1);
    expect(report.kills.relay).toBeGreaterThanOrEqual(1);
    expect(report.kills.nats).toBeGreaterThanOrEqual(1);
  });

  it('delivered every event of the outbox at least once, each copy under the event id as webhook-id, each signature valid', () => {
    expect(report.events).toBeGreaterThanOrEqual(report.writes);
    expect(report.missing).toEqual([]);
    expect(report.idMismatches).toBe(0);
    expect(report.badSignatures).toBe(0);
    expect(report.distinct).toBe(report.events);
  });
});
