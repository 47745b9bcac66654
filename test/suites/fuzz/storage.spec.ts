import { EXCLUSIONS, changedRow, changedTables, checksumSql, formatChangedRow, rowsSinceSql } from './storage';

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

  it('finds the rows a table had written since a time, by whichever stamps it has', () => {
    const sql = rowsSinceSql('catalog', 'families', ['_id', 'updated_at', 'deleted_at', 'version'], 10)!;
    expect(sql).toContain(`FROM "catalog"."families" x`);
    expect(sql).toContain(`x."updated_at" >= $1::timestamptz - interval '5 seconds' OR x."deleted_at" >=`);
    expect(sql).toContain(`ORDER BY greatest(x."updated_at", x."deleted_at") DESC LIMIT 10`);
    expect(rowsSinceSql('catalog', 'links', ['a_id', 'b_id'], 10)).toBeUndefined();
  });

  it('shows a changed row by its key, its stamps, its version and the request ids it holds', () => {
    const row = changedRow(
      'webhooks.webhooks',
      {
        _id: 'w1',
        url: 'http://x',
        updated_at: '2026-11-26T10:00:01+00:00',
        deleted_at: null,
        version: 3,
        request_id: 'fz-s-4',
        envelope: { data: { request_id: 'fz-s-9' } },
      },
      ['_id'],
    );
    expect(row).toEqual({
      table: 'webhooks.webhooks',
      key: { _id: 'w1' },
      shown: { updated_at: '2026-11-26T10:00:01+00:00', deleted_at: null, version: 3, request_id: 'fz-s-4' },
      requestIds: ['fz-s-4', 'fz-s-9'],
    });
    expect(formatChangedRow(row)).toBe(
      'webhooks.webhooks _id=w1 updated_at=2026-11-26T10:00:01+00:00 version=3 request ids fz-s-4,fz-s-9',
    );
  });
});
