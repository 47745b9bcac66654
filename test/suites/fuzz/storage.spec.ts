import { EXCLUSIONS, changedTables, checksumSql } from './storage';

describe('the storage check', () => {
  it('names the tables whose rows changed, appeared or went away', () => {
    const before = { 'a.x': { rows: 1, sum: 's1' }, 'a.y': { rows: 2, sum: 's2' }, 'a.gone': { rows: 0, sum: '' } };
    const after = { 'a.x': { rows: 1, sum: 's1' }, 'a.y': { rows: 2, sum: 's3' }, 'a.new': { rows: 1, sum: 's4' } };
    expect(changedTables(before, after)).toEqual([
      { table: 'a.gone', rowsBefore: 0, rowsAfter: -1 },
      { table: 'a.new', rowsBefore: -1, rowsAfter: 1 },
      { table: 'a.y', rowsBefore: 2, rowsAfter: 2 },
    ]);
    expect(changedTables(before, before)).toEqual([]);
  });

  it('checksums rows whatever their order, leaving excluded columns out', () => {
    expect(checksumSql('gateway', 'api_keys', ['last_used_at'])).toContain(`to_jsonb(x) - ARRAY['last_used_at']`);
    expect(checksumSql('catalog', 'brands')).toContain(`ORDER BY h`);
    expect(checksumSql('catalog', 'brands')).toContain(`FROM "catalog"."brands" x`);
  });

  it('gives a reason for every exclusion', () => {
    for (const ex of EXCLUSIONS) expect(ex.reason.length).toBeGreaterThan(20);
    expect(EXCLUSIONS.map((e) => e.table)).toEqual(
      expect.arrayContaining(['gateway.rate_limits', 'gateway.idempotency_records', 'gateway.api_keys']),
    );
  });
});
