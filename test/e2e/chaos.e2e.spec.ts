import { chaosOptions } from '../suites/chaos/options';
import { summarize, type ChaosReport } from '../suites/chaos/report';
import { runChaos } from '../suites/chaos/run';

// The chaos suite's CI slice (`npm run chaos` runs it longer): writes through every app's API
// while the apps (the gateway too; the relays live inside them) and the platform's own nats-server
// are SIGKILLed on a seeded schedule (CHAOS_SEED replays one), then every promise is checked —
// every event delivered at least once under one webhook-id, every acknowledged write stored,
// every job and approval done exactly once, no dead letters.
describe('chaos: SIGKILLs of every app and of NATS while the API is written', () => {
  let report: ChaosReport;

  beforeAll(async () => {
    report = await runChaos(chaosOptions({ log: (line) => process.stdout.write(`${line}\n`) }));
    process.stdout.write(`${summarize(report).join('\n')}\n`);
  }, 400_000);

  it('killed every app and nats-server, and supervision brought every app back', () => {
    const kinds = ['gateway', 'catalog', 'workflow', 'orders', 'io-jobs', 'publisher', 'webhooks', 'nats'];
    expect(kinds.filter((k) => !report.killsByKind[k])).toEqual([]);
    expect(report.unsettled).toEqual([]);
  });

  it('wrote through every kind of write and started jobs and approvals', () => {
    expect(report.writes.acked).toBeGreaterThan(30);
    expect(report.jobs.imports).toBeGreaterThanOrEqual(1);
    expect(report.jobs.exports).toBeGreaterThanOrEqual(1);
    expect(report.approvals.approved + report.approvals.rejected).toBeGreaterThanOrEqual(1);
  });

  it('lost nothing and did nothing twice', () => {
    expect(report.failures).toEqual([]);
    expect(report.events.distinctIds).toBeGreaterThanOrEqual(report.events.events);
    expect(report.deadLetters).toBe(0);
  });
});
