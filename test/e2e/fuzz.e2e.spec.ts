import { FUZZ_PLATFORM_ENV } from '../suites/fuzz/platform-env';
import { newSeed } from '../suites/fuzz/prng';
import { formatReport, type FuzzReport } from '../suites/fuzz/report';
import { runFuzz } from '../suites/fuzz/run';
import { startE2E, type E2E } from './platform';

/** Cases of the CI slice: with the second look at refusals, about 3,000 requests. */
const CASES = Number(process.env.FUZZ_REQUESTS || 1_700);

// Issue "Reliability", point 5: a slice of the fuzz suite (test/suites/fuzz; `npm run fuzz` runs
// 50,000 and more). Every operation and parameter of the OpenAPI document, bodies generated from
// their schemas and mutated, over HTTP only with the admin key; a failure prints its seed
// (FUZZ_SEED=… replays the run, FUZZ_CASE=… one case of it).
describe('fuzz: generated and mutated requests through the whole platform', () => {
  const seed = process.env.FUZZ_SEED || newSeed();
  let e2e: E2E;
  let report: FuzzReport;

  beforeAll(async () => {
    e2e = await startE2E('e2efuzz', FUZZ_PLATFORM_ENV);
    report = await runFuzz({
      origin: new URL(e2e.platform.gatewayUrl).origin,
      apiKey: e2e.adminKey,
      databaseUrl: e2e.platform.databaseUrl,
      seed,
      requests: CASES,
      batchSize: 100,
      logs: e2e.logs,
    });
    console.log(formatReport(report, 1));
  }, 300_000);

  afterAll(async () => {
    await e2e?.close();
  });

  it('answers without a 5xx, refuses with the error object, and stores nothing when it refuses', () => {
    if (report.failures.length > 0) throw new Error(`replay with FUZZ_SEED=${seed}\n${formatReport(report)}`);
  });

  it('calls every operation and sends every parameter of the document', () => {
    expect({ seed, operations: report.operations.missing, parameters: report.parameters.missing }).toEqual({
      seed,
      operations: [],
      parameters: [],
    });
  });

  it('compares the stored tables around most refusals', () => {
    expect(report.storage.tables).toBeGreaterThan(40);
    expect(report.storage.refusals).toBeGreaterThan(CASES / 3);
    expect(report.storage.refusalsChecked / report.storage.refusals).toBeGreaterThan(0.8);
  });
});
