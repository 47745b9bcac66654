import { parse } from 'csv-parse/sync';
import type { DataSource } from 'typeorm';
import { createDataSource, migrate } from '@pim/db';
import { stripFormulaQuote, type Cell } from '@pim/sheets';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { dataSourceOptions } from '../data-source';
import { keepRefusedRows } from '../repositories/import-errors.repository';
import { errorFile } from './import.errors';

const IMPORT = '6740a1b2c3d4e5f601234567';

// Cells of refused rows that broke rows or turned into formulas in other programs.
const AWKWARD = [
  'Caneca\n(lava-louças)',
  'bare\rreturn',
  'windows\r\nline end',
  '\r=1+1',
  'Say "hi", then; go',
  '=não é fórmula',
  '-desconto',
  "'=already read without its quote",
  '@x',
];

// The error file of an import from the refused rows kept in Postgres, read back as RFC 4180 says.
describe('import error file (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('importerrors');
    await migrate(dataSourceOptions(db.url));
    ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  it('CSV: a strict RFC 4180 parser reads every refused row back, once the neutralizing quote is removed', async () => {
    await keepRefusedRows(
      ds.manager,
      IMPORT,
      AWKWARD.map((name, i): { row_number: number; cells: Cell[]; problems: string } => ({
        row_number: i + 2,
        cells: [`mug-${i}`, name, -5],
        problems: `B (Nome): "${name}" is wrong`,
      })),
    );
    const file = errorFile(ds, {
      _id: IMPORT,
      file_type: 'csv',
      file_name: 'produtos.csv',
      headers: [
        { column: 'A', label: 'SKU' },
        { column: 'B', label: '=Nome' },
        { column: 'C', label: 'Estoque' },
      ],
    });
    expect(file).toMatchObject({ fileName: 'produtos-errors.csv', contentType: 'text/csv; charset=utf-8' });
    const chunks: Buffer[] = [];
    for await (const c of file.bytes) chunks.push(c);
    const rows = parse(Buffer.concat(chunks), {
      bom: true,
      relax_quotes: false,
      relax_column_count: false,
    }) as string[][];
    expect(rows[0]).toEqual(['SKU', "'=Nome", 'Estoque', 'Problems']);
    expect(rows.slice(1).map((r) => r.map(stripFormulaQuote))).toEqual(
      AWKWARD.map((name, i) => [`mug-${i}`, name, '-5', `B (Nome): "${name}" is wrong`]),
    );
    // A number is not text: never prefixed.
    expect(rows[1][2]).toBe('-5');
  });
});
