import { formatReport, groupFailures, replayLine, type Failure, type FuzzReport } from './report';

const failure = (operation: string, kind: Failure['kind'], index: number): Failure => ({
  operation,
  kind,
  caseKind: 'wrong-type',
  index,
  status: 500,
  detail: '500 {}',
  note: 'code of another type',
  request: 'POST /api/v1/brands',
});

const report: FuzzReport = {
  seed: 'cafe1234',
  requests: 3,
  ms: 2_000,
  msStorage: 500,
  operations: { covered: 2, total: 2, missing: [] },
  parameters: { covered: 9, total: 10, missing: ['GET /api/v1/brands query:limit'] },
  statuses: { '2xx': 1, '4xx': 1, '5xx': 1 },
  kinds: {},
  accepted: { 'extra-field': 2 },
  transient: [{ index: 4, operation: 'GET /api/v1/brands', status: 200, detail: '503' }],
  storage: { refusalsChecked: 1, refusals: 1, batchesChecked: 1, batchesSkipped: 0, tables: 50 },
  failures: [
    {
      ...failure('DELETE /api/v1/families/{id}', 'stored-on-refusal', 12),
      trace: ['rows written since 2026-11-26 10:00:00+00', "request ids of the batch's 1 cases: fz-cafe1234-12"],
    },
    failure('POST /api/v1/brands', 'server-error', 7),
    failure('POST /api/v1/brands', 'server-error', 9),
    failure('GET /api/v1/brands', 'not-error-object', 3),
  ],
};

describe('the report', () => {
  it('groups failures by operation, then kind', () => {
    const groups = groupFailures(report.failures);
    expect([...groups.keys()]).toEqual(['DELETE /api/v1/families/{id}', 'POST /api/v1/brands', 'GET /api/v1/brands']);
    expect(
      groups
        .get('POST /api/v1/brands')
        ?.get('server-error')
        ?.map((f) => f.index),
    ).toEqual([7, 9]);
  });

  it('prints coverage, the storage check, and each failure with the line that replays it', () => {
    const text = formatReport(report);
    expect(text).toContain('operations covered: 2/2 (100.0 %)');
    expect(text).toContain('parameters covered: 9/10 (90.0 %)');
    expect(text).toContain('parameters not sent (1): GET /api/v1/brands query:limit');
    expect(text).toContain('1/1 refused requests sent again between two checksums of 50 tables');
    expect(text).toContain('POST /api/v1/brands — server-error: 2');
    expect(text).toContain('mutated requests the platform took (not failures): extra-field 2');
    expect(text).toContain('case 4 GET /api/v1/brands → 200');
    expect(text).toContain(replayLine('cafe1234', 9));
    expect(text).toContain("      request ids of the batch's 1 cases: fz-cafe1234-12\n");
    expect(replayLine('cafe1234', 9)).toBe('FUZZ_SEED=cafe1234 FUZZ_CASE=9 npm run fuzz');
  });
});
