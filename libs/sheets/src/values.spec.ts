import type { Cell } from './cells';
import {
  joinList,
  parseAttributeCell,
  parseBooleanCell,
  parseNumberCell,
  parseTextCell,
  splitList,
  type CellAttribute,
  type Parsed,
} from './values';

/** An attribute of a type, with settings and options when given. */
const attribute = (type: CellAttribute['type'], more: Partial<CellAttribute> = {}): CellAttribute => ({
  key: type,
  type,
  localizable: false,
  ...more,
});

/** The error of a refusal, failing the test when the result is a value. */
function errorOf(result: Parsed<unknown> | undefined): string {
  if (result === undefined || !('error' in result)) throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  return result.error;
}

const utc = (iso: string) => new Date(iso);

describe('parseTextCell', () => {
  it('trims text and treats empty cells as nothing', () => {
    expect(parseTextCell('  Blue shirt \t')).toBe('Blue shirt');
    expect(parseTextCell('')).toBeUndefined();
    expect(parseTextCell('   ')).toBeUndefined();
    expect(parseTextCell('\u00a0\n')).toBeUndefined();
    expect(parseTextCell(null)).toBeUndefined();
    expect(parseTextCell(undefined)).toBeUndefined();
  });

  it('writes numbers as plain decimal text', () => {
    expect(parseTextCell(12)).toBe('12');
    expect(parseTextCell(12.5)).toBe('12.5');
    expect(parseTextCell(-3)).toBe('-3');
    expect(parseTextCell(0)).toBe('0');
    expect(parseTextCell(0.0000001)).toBe('0.0000001');
    expect(parseTextCell(-1.5e-7)).toBe('-0.00000015');
    expect(parseTextCell(1e21)).toBe('1000000000000000000000');
    expect(parseTextCell(1.25e22)).toBe('12500000000000000000000');
    expect(parseTextCell(7891234567890)).toBe('7891234567890');
  });

  it('writes booleans as true/false', () => {
    expect(parseTextCell(true)).toBe('true');
    expect(parseTextCell(false)).toBe('false');
  });

  it('writes a date at UTC midnight as an ISO date and any other instant in full', () => {
    expect(parseTextCell(utc('2024-01-31T00:00:00.000Z'))).toBe('2024-01-31');
    expect(parseTextCell(utc('2024-01-31T12:30:00.000Z'))).toBe('2024-01-31T12:30:00.000Z');
    expect(parseTextCell(utc('2024-01-31T00:00:00.001Z'))).toBe('2024-01-31T00:00:00.001Z');
    expect(parseTextCell(utc('1950-06-01T00:00:00.000Z'))).toBe('1950-06-01');
  });
});

describe('splitList', () => {
  it('splits on |, else ;, else , trimming items and dropping empties', () => {
    expect(splitList('red | blue|green')).toEqual(['red', 'blue', 'green']);
    expect(splitList('red; blue ;green')).toEqual(['red', 'blue', 'green']);
    expect(splitList('red, blue,green')).toEqual(['red', 'blue', 'green']);
    expect(splitList('a,, b,  ,')).toEqual(['a', 'b']);
  });

  it('splits only on the first separator present in priority order', () => {
    expect(splitList('a, b | c; d')).toEqual(['a, b', 'c; d']);
    expect(splitList('a, b; c')).toEqual(['a, b', 'c']);
  });

  it('keeps a text without separators whole', () => {
    expect(splitList('  navy blue ')).toEqual(['navy blue']);
  });

  it('returns a number cell as one item', () => {
    expect(splitList(12.5)).toEqual(['12.5']);
    expect(splitList(1000)).toEqual(['1000']);
  });

  it('returns nothing for an empty cell', () => {
    expect(splitList(null)).toEqual([]);
    expect(splitList(undefined)).toEqual([]);
    expect(splitList('   ')).toEqual([]);
    expect(splitList(' | | ')).toEqual([]);
    expect(splitList(',,')).toEqual([]);
  });

  it('keeps a separator after a backslash inside its item, and reads \\\\ as one backslash', () => {
    expect(splitList('AB\\|1|CX 100')).toEqual(['AB|1', 'CX 100']);
    expect(splitList('FIO-2\\,5MM')).toEqual(['FIO-2,5MM']);
    expect(splitList('A\\;B; C')).toEqual(['A;B', 'C']);
    // An escaped | does not make | the separator: the cell is split on what is left.
    expect(splitList('A\\|B, C')).toEqual(['A|B', 'C']);
    expect(splitList('ends in\\\\|next')).toEqual(['ends in\\', 'next']);
    // Any other backslash is kept as written.
    expect(splitList('C:\\temp|x\\y')).toEqual(['C:\\temp', 'x\\y']);
    expect(splitList('trailing\\')).toEqual(['trailing\\']);
  });
});

describe('joinList', () => {
  const codes = [
    ['AB-12/3', 'CX 100', '#123', 'Açaí-500', '日本-1'],
    ['FIO-2,5MM'],
    ['A;B'],
    ['A|B'],
    ['a,b', 'c;d', 'e|f', 'g\\', '\\h'],
    ['C:\\temp\\x'],
    ['only'],
    [],
  ];

  it.each(codes)('writes items that splitList reads back the same: %j', (...items) => {
    expect(splitList(joinList(items))).toEqual(items);
  });

  it('joins with | and escapes only what would split the cell', () => {
    expect(joinList(['AB-12/3', 'CX 100'])).toBe('AB-12/3|CX 100');
    expect(joinList(['a, b', 'c'])).toBe('a, b|c');
    expect(joinList(['a|b', 'c'])).toBe('a\\|b|c');
    expect(joinList(['FIO-2,5MM'])).toBe('FIO-2\\,5MM');
  });
});

describe('parseBooleanCell', () => {
  it('takes a boolean cell as is', () => {
    expect(parseBooleanCell(true)).toEqual({ value: true });
    expect(parseBooleanCell(false)).toEqual({ value: false });
  });

  it('takes the numbers 1 and 0', () => {
    expect(parseBooleanCell(1)).toEqual({ value: true });
    expect(parseBooleanCell(0)).toEqual({ value: false });
    expect(errorOf(parseBooleanCell(2))).toContain('"2"');
  });

  it.each(['true', 'TRUE', ' Yes ', 'y', 'Sim', 'S', 'verdadeiro', 'Verdadeiro', 'v', '1', 'on', 'ON', 'x', 'X'])(
    'reads %j as true',
    (text) => expect(parseBooleanCell(text)).toEqual({ value: true }),
  );

  it.each(['false', 'FALSE', 'no', 'No', 'n', 'não', 'NÃO', 'nao', 'Nao', 'falso', 'F', '0', 'off', 'Off'])(
    'reads %j as false',
    (text) => expect(parseBooleanCell(text)).toEqual({ value: false }),
  );

  it('returns nothing for an empty cell', () => {
    expect(parseBooleanCell(null)).toBeUndefined();
    expect(parseBooleanCell(undefined)).toBeUndefined();
    expect(parseBooleanCell('  ')).toBeUndefined();
  });

  it('refuses other words, quoting the cell and listing accepted words', () => {
    const error = errorOf(parseBooleanCell('maybe'));
    expect(error).toContain('"maybe"');
    expect(error).toMatch(/true\/false.*yes\/no.*sim\/não/);
    expect(errorOf(parseBooleanCell('yess'))).toContain('"yess"');
    expect(errorOf(parseBooleanCell('2'))).toContain('"2"');
  });

  it('refuses a date cell', () => {
    expect(errorOf(parseBooleanCell(utc('2024-01-31T00:00:00Z')))).toContain('"2024-01-31"');
  });
});

describe('parseNumberCell', () => {
  it('takes a number cell as is', () => {
    expect(parseNumberCell(12.5)).toEqual({ value: 12.5 });
    expect(parseNumberCell(-3)).toEqual({ value: -3 });
    expect(parseNumberCell(0)).toEqual({ value: 0 });
  });

  it('refuses NaN and infinities', () => {
    expect(errorOf(parseNumberCell(NaN))).toContain('is not a number');
    expect(errorOf(parseNumberCell(Infinity))).toContain('is not a number');
    expect(errorOf(parseNumberCell(-Infinity))).toContain('is not a number');
  });

  it.each([
    ['12', 12],
    ['12.5', 12.5],
    ['12,5', 12.5],
    ['  12,5  ', 12.5],
    ['-3', -3],
    ['+3', 3],
    ['\u22123', -3],
    ['0', 0],
    ['007', 7],
    ['.5', 0.5],
    [',5', 0.5],
    ['-0,25', -0.25],
    ['1e3', 1000],
    ['1E3', 1000],
    ['1.5e3', 1500],
    ['1,5e-2', 0.015],
    ['2e+2', 200],
  ])('reads %j as %p', (text, value) => expect(parseNumberCell(text)).toEqual({ value }));

  it.each([
    ['1.234,56', 1234.56],
    ['1,234.56', 1234.56],
    ['1.234.567,89', 1234567.89],
    ['1,234,567.89', 1234567.89],
    ['1 234,56', 1234.56],
    ['1 234.56', 1234.56],
    ['1\u00a0234,56', 1234.56],
    ['1\u202f234,56', 1234.56],
    ['1 234 567', 1234567],
    ['-1.234,5', -1234.5],
  ])('reads thousands separators in %j as %p', (text, value) => expect(parseNumberCell(text)).toEqual({ value }));

  it('reads a lone separator before three digits as the decimal separator', () => {
    expect(parseNumberCell('1.234')).toEqual({ value: 1.234 });
    expect(parseNumberCell('1,234')).toEqual({ value: 1.234 });
  });

  it('reads a repeated separator as the thousands separator', () => {
    expect(parseNumberCell('1,234,567')).toEqual({ value: 1234567 });
    expect(parseNumberCell('1.234.567')).toEqual({ value: 1234567 });
  });

  it.each([
    'abc',
    '12abc',
    '1,23,456',
    '1.234.56',
    '1,234,56',
    '1.2.3,4,5',
    '1,234.567,8',
    '12 5',
    '1 234.567,89',
    '12,',
    '12.',
    '.',
    ',',
    '-',
    '- 3',
    '3-',
    '1e',
    'e3',
    '1e999',
    '12 kg',
    '0x1F',
    'Infinity',
    'NaN',
  ])('refuses %j', (text) => {
    const error = errorOf(parseNumberCell(text));
    expect(error).toBe(`${JSON.stringify(text)} is not a number (write 12.5, 12,5 or 15%)`);
  });

  describe('percent', () => {
    // What a cell formatted as a percent holds (0.15 shown as 15%) and what a CSV of it writes
    // (LibreOffice `15%`, `15.0%`; pt-BR `15,5%`; French `15,5 %` with a no-break space).
    it.each([
      ['15%', 0.15],
      ['15.0%', 0.15],
      ['15,5%', 0.155],
      ['15,5 %', 0.155],
      ['15,5\u00a0%', 0.155],
      ['15,5\u202f%', 0.155],
      ['1.1%', 0.011],
      ['0%', 0],
      ['100%', 1],
      ['-2,5%', -0.025],
      ['1.234,5%', 12.345],
      ['1e2%', 1],
    ])('reads %j as the fraction %p, as a percent cell holds it', (text, value) =>
      expect(parseNumberCell(text)).toEqual({ value }),
    );

    it.each(['%', '15%%', '% 15', '15 % %', 'abc%'])('refuses %j', (text) => {
      expect(errorOf(parseNumberCell(text))).toBe(`${JSON.stringify(text)} is not a number (write 12.5, 12,5 or 15%)`);
    });

    it('reads a percent only for a number: a metric in % keeps its amount', () => {
      const share = attribute('metric', { key: 'cotton', type_config: { units: ['%'] } });
      expect(parseAttributeCell('80 %', share)).toEqual({ value: { amount: 80, unit: '%' } });
      expect(
        errorOf(parseAttributeCell('15%', attribute('price', { type_config: { currencies: ['BRL'] } }))),
      ).toContain('is not a price');
    });
  });

  describe('currency', () => {
    // What a cell formatted as a currency holds (1234.5 shown as R$ 1,234.50) and what a CSV of it
    // writes: LibreOffice `R$ 1,234.50` and `-R$ 3.20`, pt-BR `R$ 1.234,50` (often a no-break
    // space after the symbol), `1.234,50 €`, `$1,234.50`.
    it.each([
      ['R$ 3.20', 3.2],
      ['R$ 1,234.50', 1234.5],
      ['R$ 1.234,50', 1234.5],
      ['R$\u00a01.234,50', 1234.5],
      ['-R$ 3.20', -3.2],
      ['R$ -3.20', -3.2],
      ['$1,234.50', 1234.5],
      ['US$ 7', 7],
      ['1.234,50 €', 1234.5],
      ['£0.99', 0.99],
    ])('reads %j as the amount %p, as a currency cell holds it', (text, value) =>
      expect(parseNumberCell(text)).toEqual({ value }),
    );

    it.each(['R$', 'R$ abc', '- R$ 3', '-R$ -3', 'R$ 15%', '12 BRL', 'BRL 12', '€ 3 €'])('refuses %j', (text) => {
      expect(errorOf(parseNumberCell(text))).toBe(`${JSON.stringify(text)} is not a number (write 12.5, 12,5 or 15%)`);
    });
  });

  it('refuses boolean and date cells', () => {
    expect(errorOf(parseNumberCell(true))).toContain('"true" is not a number');
    expect(errorOf(parseNumberCell(utc('2024-01-31T00:00:00Z')))).toContain('"2024-01-31" is not a number');
  });

  it('returns nothing for an empty cell', () => {
    expect(parseNumberCell(null)).toBeUndefined();
    expect(parseNumberCell(undefined)).toBeUndefined();
    expect(parseNumberCell(' ')).toBeUndefined();
  });

  it('cuts a long text in its error', () => {
    const error = errorOf(parseNumberCell('x'.repeat(1_000)));
    expect(error.length).toBeLessThan(300);
    expect(error).toContain('…');
  });
});

describe('parseAttributeCell', () => {
  it.each([null, undefined, '', '   '] as (Cell | undefined)[])('returns nothing for the empty cell %j', (cell) => {
    for (const type of ['text', 'number', 'boolean', 'date', 'datetime', 'select', 'multiselect', 'price'] as const)
      expect(parseAttributeCell(cell, attribute(type))).toBeUndefined();
  });

  describe('text types', () => {
    it.each(['text', 'textarea', 'url', 'email', 'image', 'file'] as const)(
      'returns the trimmed text for %s',
      (type) => {
        expect(parseAttributeCell('  https://example.com/a.png ', attribute(type))).toEqual({
          value: 'https://example.com/a.png',
        });
      },
    );

    it('returns a string for a localizable text, one cell per language', () => {
      const localized = attribute('text', { localizable: true, type_config: { localizable: true } });
      expect(parseAttributeCell(' Camisa azul ', localized)).toEqual({ value: 'Camisa azul' });
    });

    it('writes non-text cells as text', () => {
      expect(parseAttributeCell(12, attribute('text'))).toEqual({ value: '12' });
      expect(parseAttributeCell(true, attribute('text'))).toEqual({ value: 'true' });
      expect(parseAttributeCell(utc('2024-01-31T00:00:00Z'), attribute('text'))).toEqual({ value: '2024-01-31' });
    });

    it('returns the trimmed text for an unknown type', () => {
      const unknown = attribute('hologram' as CellAttribute['type']);
      expect(parseAttributeCell('  shiny ', unknown)).toEqual({ value: 'shiny' });
    });
  });

  describe('number', () => {
    const number = attribute('number');

    it('reads numbers as parseNumberCell does', () => {
      expect(parseAttributeCell(3, number)).toEqual({ value: 3 });
      expect(parseAttributeCell('1.234,56', number)).toEqual({ value: 1234.56 });
      expect(parseAttributeCell('1,234.56', number)).toEqual({ value: 1234.56 });
      expect(errorOf(parseAttributeCell('abc', number))).toBe('"abc" is not a number (write 12.5, 12,5 or 15%)');
    });
  });

  describe('a number shown through a number format (00123, 01310-100)', () => {
    // An XLSX cell holding 1310100 formatted 00000-000 reads as the text `01310-100` with the
    // number kept beside it (SheetRow.formattedNumbers).
    const shown = '01310-100';

    it.each(['text', 'textarea', 'url', 'email', 'image', 'file'] as const)('reads the text shown for %s', (type) => {
      expect(parseAttributeCell(shown, attribute(type), 1310100)).toEqual({ value: shown });
    });

    it('reads the text shown for select and multiselect options', () => {
      const options = [{ value: '007' }, { value: '008' }];
      expect(parseAttributeCell('007', attribute('select', { options }), 7)).toEqual({ value: '007' });
      expect(parseAttributeCell('007', attribute('multiselect', { options }), 7)).toEqual({ value: ['007'] });
    });

    it('reads the number for number, yes/no, date, price and metric attributes', () => {
      expect(parseAttributeCell(shown, attribute('number'), 1310100)).toEqual({ value: 1310100 });
      expect(parseAttributeCell('0', attribute('number'), 0)).toEqual({ value: 0 });
      expect(parseAttributeCell('00001', attribute('boolean'), 1)).toEqual({ value: true });
      expect(parseAttributeCell('045322', attribute('date'), 45322)).toEqual({ value: '2024-01-31' });
      expect(parseAttributeCell('045322', attribute('datetime'), 45322)).toEqual({ value: '2024-01-31T00:00:00.000Z' });
      const price = attribute('price', { type_config: { currencies: ['BRL'] } });
      expect(parseAttributeCell('SKU-0042', price, 42)).toEqual({ value: { amount: 42, currency: 'BRL' } });
      const weight = attribute('metric', { type_config: { units: ['kg'] } });
      expect(parseAttributeCell('0042', weight, 42)).toEqual({ value: { amount: 42, unit: 'kg' } });
    });

    it('reads the cell alone without a number beside it', () => {
      expect(parseAttributeCell(shown, attribute('text'))).toEqual({ value: shown });
      expect(errorOf(parseAttributeCell(shown, attribute('number')))).toContain('is not a number');
    });
  });

  describe('boolean', () => {
    it('reads yes/no as parseBooleanCell does', () => {
      expect(parseAttributeCell('Sim', attribute('boolean'))).toEqual({ value: true });
      expect(parseAttributeCell(0, attribute('boolean'))).toEqual({ value: false });
      expect(errorOf(parseAttributeCell('talvez', attribute('boolean')))).toContain('"talvez"');
    });
  });

  describe('date', () => {
    const date = attribute('date');
    const parse = (cell: Cell) => parseAttributeCell(cell, date);

    it('takes a date cell as its UTC date', () => {
      expect(parse(utc('2024-01-31T00:00:00Z'))).toEqual({ value: '2024-01-31' });
      expect(parse(utc('2024-01-31T23:59:59.999Z'))).toEqual({ value: '2024-01-31' });
    });

    it('reads a number as a spreadsheet serial in the 1900 date system', () => {
      expect(parse(1)).toEqual({ value: '1900-01-01' });
      expect(parse(59)).toEqual({ value: '1900-02-28' });
      expect(parse(61)).toEqual({ value: '1900-03-01' });
      expect(parse(45322)).toEqual({ value: '2024-01-31' });
      expect(parse(45322.75)).toEqual({ value: '2024-01-31' });
      expect(parse(2958465)).toEqual({ value: '9999-12-31' });
    });

    it("refuses serials out of range and Excel's fictitious 1900-02-29", () => {
      for (const serial of [0, -1, 60, 60.5, 2958466, NaN, Infinity])
        expect(errorOf(parse(serial))).toContain('is not a date');
    });

    it('reads text that is a serial as the serial', () => {
      expect(parse('45322')).toEqual({ value: '2024-01-31' });
      expect(parse('45322,5')).toEqual({ value: '2024-01-31' });
      expect(parse('45322.5')).toEqual({ value: '2024-01-31' });
    });

    it.each([
      ['2024-01-31', '2024-01-31'],
      [' 2024-01-31 ', '2024-01-31'],
      ['2024-1-5', '2024-01-05'],
      ['2024-01-31T12:30:00Z', '2024-01-31'],
      ['2024-01-31T23:30:00-03:00', '2024-01-31'],
      ['2024-01-31 12:30', '2024-01-31'],
      ['31/01/2024', '2024-01-31'],
      ['31-01-2024', '2024-01-31'],
      ['31.01.2024', '2024-01-31'],
      ['1/2/2024', '2024-02-01'],
      ['05/03/2024', '2024-03-05'],
      ['31/01/2024 12:30', '2024-01-31'],
      ['29/02/2024', '2024-02-29'],
      ['2000-02-29', '2000-02-29'],
    ])('reads %j as %j', (text, value) => expect(parse(text)).toEqual({ value }));

    it.each([
      '2024-02-30',
      '2023-02-29',
      '1900-02-29',
      '2024-13-01',
      '2024-00-10',
      '2024-01-00',
      '32/01/2024',
      '31/13/2024',
      '30/02/2024',
      '31/01-2024',
      '31/01/24',
      '01/31/2024',
      '2024/01/31',
      '2024-01-31T25:00',
      '2024-01-31 foo',
      'tomorrow',
      '0000-01-01',
    ])('refuses %j', (text) => {
      expect(errorOf(parse(text))).toBe(`${JSON.stringify(text)} is not a date (write 2024-01-31 or 31/01/2024)`);
    });

    it('refuses booleans and invalid date cells', () => {
      expect(errorOf(parse(true))).toContain('"true" is not a date');
      expect(errorOf(parse(new Date(NaN)))).toContain('is not a date');
    });
  });

  describe('datetime', () => {
    const datetime = attribute('datetime');
    const parse = (cell: Cell) => parseAttributeCell(cell, datetime);

    it('takes a date cell as its instant', () => {
      expect(parse(utc('2024-01-31T12:30:15.250Z'))).toEqual({ value: '2024-01-31T12:30:15.250Z' });
      expect(parse(utc('2024-01-31T00:00:00Z'))).toEqual({ value: '2024-01-31T00:00:00.000Z' });
    });

    it('reads a number as a serial whose fraction is the time of day in UTC', () => {
      expect(parse(45322)).toEqual({ value: '2024-01-31T00:00:00.000Z' });
      expect(parse(45322.5)).toEqual({ value: '2024-01-31T12:00:00.000Z' });
      expect(parse(45322 + 12.5 / 24)).toEqual({ value: '2024-01-31T12:30:00.000Z' });
      expect(parse(1.25)).toEqual({ value: '1900-01-01T06:00:00.000Z' });
      expect(errorOf(parse(60.5))).toContain('is not a date and time');
      expect(errorOf(parse(0.5))).toContain('is not a date and time');
    });

    it.each([
      ['2024-01-31T12:30:00Z', '2024-01-31T12:30:00.000Z'],
      ['2024-01-31T12:30:00z', '2024-01-31T12:30:00.000Z'],
      ['2024-01-31T12:30:00.123Z', '2024-01-31T12:30:00.123Z'],
      ['2024-01-31T12:30:00.5Z', '2024-01-31T12:30:00.500Z'],
      ['2024-01-31T12:30:00.123456Z', '2024-01-31T12:30:00.123Z'],
      ['2024-01-31T12:30:00-03:00', '2024-01-31T15:30:00.000Z'],
      ['2024-01-31T22:30:00-03:00', '2024-02-01T01:30:00.000Z'],
      ['2024-01-31T01:00:00+05:30', '2024-01-30T19:30:00.000Z'],
      ['2024-01-31T12:30+0100', '2024-01-31T11:30:00.000Z'],
      ['2024-01-31T12:30+01', '2024-01-31T11:30:00.000Z'],
      ['2024-01-31 12:30 -03:00', '2024-01-31T15:30:00.000Z'],
      ['31/01/2024 12:30Z', '2024-01-31T12:30:00.000Z'],
      ['31/01/2024 12:30-03:00', '2024-01-31T15:30:00.000Z'],
    ])('re-writes %j with its offset in UTC: %j', (text, value) => expect(parse(text)).toEqual({ value }));

    it.each([
      ['2024-01-31 12:30', '2024-01-31T12:30:00.000Z'],
      ['2024-01-31T12:30', '2024-01-31T12:30:00.000Z'],
      ['2024-01-31T12:30:15', '2024-01-31T12:30:15.000Z'],
      ['2024-01-31 9:05', '2024-01-31T09:05:00.000Z'],
      ['31/01/2024 12:30', '2024-01-31T12:30:00.000Z'],
      ['31/01/2024 12:30:45', '2024-01-31T12:30:45.000Z'],
      ['31.01.2024 08:00', '2024-01-31T08:00:00.000Z'],
    ])('takes %j without an offset as UTC: %j', (text, value) => expect(parse(text)).toEqual({ value }));

    it('reads a date alone as midnight UTC', () => {
      expect(parse('2024-01-31')).toEqual({ value: '2024-01-31T00:00:00.000Z' });
      expect(parse('31/01/2024')).toEqual({ value: '2024-01-31T00:00:00.000Z' });
    });

    describe('in a time zone', () => {
      const inSaoPaulo = (cell: Cell) => parseAttributeCell(cell, datetime, undefined, 'America/Sao_Paulo');

      it('takes a wall time without an offset in the zone: a store in São Paulo typing 13:45 means 16:45 UTC', () => {
        expect(inSaoPaulo('2024-01-31 13:45')).toEqual({ value: '2024-01-31T16:45:00.000Z' });
        expect(inSaoPaulo('31/01/2024 13:45')).toEqual({ value: '2024-01-31T16:45:00.000Z' });
        expect(inSaoPaulo('2024-01-31')).toEqual({ value: '2024-01-31T03:00:00.000Z' });
      });

      it('takes a date cell and a serial as wall times in the zone, as the sheet shows them', () => {
        expect(inSaoPaulo(utc('2024-01-31T13:45:00Z'))).toEqual({ value: '2024-01-31T16:45:00.000Z' });
        expect(inSaoPaulo(45322.5)).toEqual({ value: '2024-01-31T15:00:00.000Z' });
        expect(inSaoPaulo('45322,5')).toEqual({ value: '2024-01-31T15:00:00.000Z' });
      });

      it('keeps the instant of text with Z or an offset, whatever the zone', () => {
        expect(inSaoPaulo('2024-01-31T13:45:00Z')).toEqual({ value: '2024-01-31T13:45:00.000Z' });
        expect(inSaoPaulo('2024-01-31T13:45:00+01:00')).toEqual({ value: '2024-01-31T12:45:00.000Z' });
      });

      it('follows daylight saving: the offset of the day, a skipped time moved forward, a repeated one in standard time', () => {
        const inNewYork = (cell: Cell) => parseAttributeCell(cell, datetime, undefined, 'America/New_York');
        expect(inNewYork('2024-07-01 12:00')).toEqual({ value: '2024-07-01T16:00:00.000Z' });
        expect(inNewYork('2024-01-01 12:00')).toEqual({ value: '2024-01-01T17:00:00.000Z' });
        expect(inNewYork('2024-03-10 02:30')).toEqual({ value: '2024-03-10T07:30:00.000Z' });
        expect(inNewYork('2024-11-03 01:30')).toEqual({ value: '2024-11-03T06:30:00.000Z' });
      });

      it('leaves dates alone: a date has no time of day to move', () => {
        expect(parseAttributeCell('2024-01-31', attribute('date'), undefined, 'Asia/Tokyo')).toEqual({
          value: '2024-01-31',
        });
      });
    });

    it('reads text that is a serial as the serial', () => {
      expect(parse('45322.5')).toEqual({ value: '2024-01-31T12:00:00.000Z' });
      expect(parse('45322,25')).toEqual({ value: '2024-01-31T06:00:00.000Z' });
    });

    it.each([
      '2024-02-30 12:00',
      '2024-01-31 24:00',
      '2024-01-31 12:60',
      '2024-01-31 12:30:61',
      '2024-01-31T12:30+25:00',
      '2024-01-31T12:30:00 UTC',
      '31/01/2024 noon',
      'now',
      'Wed, 31 Jan 2024 12:00:00 GMT',
    ])('refuses %j', (text) => {
      expect(errorOf(parse(text))).toBe(
        `${JSON.stringify(text)} is not a date and time (write 2024-01-31 12:30, 2024-01-31T12:30:00Z or 31/01/2024 12:30)`,
      );
    });

    it('refuses instants that leave the years 1 to 9999', () => {
      expect(errorOf(parse('9999-12-31T23:30:00-03:00'))).toContain('is not a date and time');
    });

    it('refuses booleans and invalid date cells', () => {
      expect(errorOf(parse(false))).toContain('"false" is not a date and time');
      expect(errorOf(parse(new Date(NaN)))).toContain('is not a date and time');
    });
  });

  describe('select', () => {
    const color = attribute('select', {
      key: 'color',
      options: [
        { value: 'red', label: 'Vermelho' },
        { value: 'blue', label: 'Azul' },
        { value: 'Navy', label: 'Azul-marinho' },
        { value: 'NAVY' },
        { value: 'cafe', label: 'Café' },
        { value: '12' },
      ],
    });
    const parse = (cell: Cell) => parseAttributeCell(cell, color);

    it('matches an option value exactly first', () => {
      expect(parse('red')).toEqual({ value: 'red' });
      expect(parse('NAVY')).toEqual({ value: 'NAVY' });
      expect(parse('Navy')).toEqual({ value: 'Navy' });
    });

    it('then a value ignoring case', () => {
      expect(parse(' RED ')).toEqual({ value: 'red' });
      expect(parse('navy')).toEqual({ value: 'Navy' });
    });

    it('then a label ignoring case, returning the value', () => {
      expect(parse('vermelho')).toEqual({ value: 'red' });
      expect(parse('AZUL-MARINHO')).toEqual({ value: 'Navy' });
      expect(parse('café')).toEqual({ value: 'cafe' });
    });

    it('compares accents as written', () => {
      expect(parse('Cafe')).toEqual({ value: 'cafe' });
      expect(errorOf(parse('cafè'))).toContain('"cafè"');
    });

    it('matches a number cell by its text', () => {
      expect(parse(12)).toEqual({ value: '12' });
    });

    it('refuses an unknown option, naming the options', () => {
      expect(errorOf(parse('blu'))).toBe(
        '"blu" is not an option of color (one of "red", "blue", "Navy", "NAVY", "cafe", "12")',
      );
    });

    it('names an option with labels in several languages once', () => {
      const twice = parseAttributeCell('blu', {
        ...color,
        options: [
          { value: 'red', label: 'Vermelho' },
          { value: 'red', label: 'Red' },
          { value: 'blue', label: 'Azul' },
          { value: 'blue', label: 'Blue' },
        ],
      });
      expect(errorOf(twice)).toBe('"blu" is not an option of color (one of "red", "blue")');
    });

    it('names at most ten options', () => {
      const options = Array.from({ length: 30 }, (_, i) => ({ value: `option-${i}` }));
      const error = errorOf(parseAttributeCell('nope', attribute('select', { key: 'size', options })));
      expect(error).toContain('"option-9", …)');
      expect(error).not.toContain('option-10');
      expect(error.length).toBeLessThan(300);
    });

    it('keeps the error short with long option values', () => {
      const options = Array.from({ length: 12 }, (_, i) => ({ value: `${i}-${'v'.repeat(200)}` }));
      const error = errorOf(parseAttributeCell('z'.repeat(500), attribute('select', { key: 'size', options })));
      expect(error.length).toBeLessThanOrEqual(300);
    });

    it('says when the attribute has no options', () => {
      expect(errorOf(parseAttributeCell('red', attribute('select', { key: 'color' })))).toBe(
        '"red" is not an option of color (it has no options)',
      );
    });
  });

  describe('multiselect', () => {
    const tags = attribute('multiselect', {
      key: 'tags',
      options: [
        { value: 'new', label: 'Novo' },
        { value: 'sale', label: 'Promoção' },
        { value: 'eco' },
        { value: 'Red, dark' },
      ],
    });
    const parse = (cell: Cell) => parseAttributeCell(cell, tags);

    it('matches each item of the list as a select', () => {
      expect(parse('new | SALE')).toEqual({ value: ['new', 'sale'] });
      expect(parse('novo; eco')).toEqual({ value: ['new', 'eco'] });
      expect(parse('eco, promoção')).toEqual({ value: ['eco', 'sale'] });
      expect(parse('eco')).toEqual({ value: ['eco'] });
    });

    it('drops repeats and keeps the order', () => {
      expect(parse('sale, new, Novo, SALE, eco')).toEqual({ value: ['sale', 'new', 'eco'] });
    });

    it('takes a cell that names an option with a comma whole', () => {
      expect(parse('Red, dark')).toEqual({ value: ['Red, dark'] });
      expect(parse('Red, dark | eco')).toEqual({ value: ['Red, dark', 'eco'] });
    });

    it('refuses unknown items in one error naming them', () => {
      expect(errorOf(parse('new, old, used'))).toBe(
        '"old", "used" are not options of tags (one of "new", "sale", "eco", "Red, dark")',
      );
      expect(errorOf(parse('new; old'))).toBe(
        '"old" is not an option of tags (one of "new", "sale", "eco", "Red, dark")',
      );
    });

    it('returns nothing for a list of separators only', () => {
      expect(parse(' | ')).toBeUndefined();
    });
  });

  describe('price', () => {
    const price = (currencies?: string[]) =>
      attribute('price', { key: 'price', type_config: currencies ? { currencies } : undefined });
    const parse = (cell: Cell, currencies?: string[]) => parseAttributeCell(cell, price(currencies));

    it.each([
      ['12.50 BRL', 12.5, 'BRL'],
      ['12,50 BRL', 12.5, 'BRL'],
      ['BRL 12.50', 12.5, 'BRL'],
      ['brl 12,50', 12.5, 'BRL'],
      ['12.50brl', 12.5, 'BRL'],
      ['R$ 12,50', 12.5, 'BRL'],
      ['R$12,50', 12.5, 'BRL'],
      ['r$ 1.234,56', 1234.56, 'BRL'],
      ['12,50 R$', 12.5, 'BRL'],
      ['US$ 9.99', 9.99, 'USD'],
      ['$9.99', 9.99, 'USD'],
      ['9.99 $', 9.99, 'USD'],
      ['€ 5', 5, 'EUR'],
      ['5,00 €', 5, 'EUR'],
      ['£3.20', 3.2, 'GBP'],
      ['1,234.56 usd', 1234.56, 'USD'],
      ['1 234,56 EUR', 1234.56, 'EUR'],
      ['-5 BRL', -5, 'BRL'],
    ])('reads %j as %p %s', (text, amount, currency) => {
      expect(parse(text)).toEqual({ value: { amount, currency } });
    });

    it('puts a number, or an amount without currency, in the only currency of the attribute', () => {
      expect(parse(12.5, ['BRL'])).toEqual({ value: { amount: 12.5, currency: 'BRL' } });
      expect(parse('12,50', ['BRL'])).toEqual({ value: { amount: 12.5, currency: 'BRL' } });
    });

    it('keeps a written currency even when the attribute has another', () => {
      expect(parse('9.99 USD', ['BRL'])).toEqual({ value: { amount: 9.99, currency: 'USD' } });
    });

    it('asks for the currency when the attribute has none or several', () => {
      expect(errorOf(parse(12.5))).toBe('"12.5" has no currency (write it after the amount, as in "12.5 BRL")');
      expect(errorOf(parse('12,50', ['USD', 'BRL']))).toBe(
        '"12,50" has no currency (write it after the amount, as in "12,50 USD")',
      );
    });

    it.each(['abc', 'BRL', 'R$', '12 BRLX', '12 euros', 'BRL 12 USD', '1,23,4 BRL', 'R$ abc'])('refuses %j', (text) => {
      expect(errorOf(parse(text, ['BRL']))).toBe(
        `${JSON.stringify(text)} is not a price (write 12.50 BRL or R$ 12,50)`,
      );
    });

    it('refuses non-finite numbers, booleans and dates', () => {
      expect(errorOf(parse(NaN, ['BRL']))).toContain('is not a price');
      expect(errorOf(parse(true, ['BRL']))).toContain('"true" is not a price');
      expect(errorOf(parse(utc('2024-01-31T00:00:00Z'), ['BRL']))).toContain('is not a price');
    });
  });

  describe('metric', () => {
    const metric = (units?: string[]) =>
      attribute('metric', { key: 'weight', type_config: units ? { units } : undefined });
    const parse = (cell: Cell, units: string[] | undefined = ['kg', 'g']) => parseAttributeCell(cell, metric(units));

    it.each([
      ['3 kg', 3, 'kg'],
      ['3kg', 3, 'kg'],
      ['3,5 kg', 3.5, 'kg'],
      ['3.5kg', 3.5, 'kg'],
      ['3 KG', 3, 'kg'],
      ['250 g', 250, 'g'],
      ['250G', 250, 'g'],
      ['1.234,5 g', 1234.5, 'g'],
      ['-2 kg', -2, 'kg'],
    ])('reads %j as %p %s', (text, amount, unit) => expect(parse(text)).toEqual({ value: { amount, unit } }));

    it('returns the unit as the attribute writes it', () => {
      expect(parse('10 ML', ['mL', 'L'])).toEqual({ value: { amount: 10, unit: 'mL' } });
      expect(parse('2 fl oz', ['fl oz', 'oz'])).toEqual({ value: { amount: 2, unit: 'fl oz' } });
      expect(parse('2 oz', ['fl oz', 'oz'])).toEqual({ value: { amount: 2, unit: 'oz' } });
      expect(parse('5 mm', ['m', 'mm'])).toEqual({ value: { amount: 5, unit: 'mm' } });
      expect(parse('5 m', ['m', 'mm'])).toEqual({ value: { amount: 5, unit: 'm' } });
    });

    it('puts a number alone in the only unit of the attribute', () => {
      expect(parse(3, ['kg'])).toEqual({ value: { amount: 3, unit: 'kg' } });
      expect(parse('3,5', ['kg'])).toEqual({ value: { amount: 3.5, unit: 'kg' } });
    });

    it('asks for the unit when the attribute has several or none', () => {
      expect(errorOf(parse(3))).toBe('"3" has no unit (write it after the number, as in "3 kg"; one of kg, g)');
      expect(errorOf(parseAttributeCell('3', metric()))).toBe(
        '"3" has no unit (write it after the number, as in "3 kg"; it has no units)',
      );
    });

    it('refuses a unit the attribute does not have, naming its units', () => {
      expect(errorOf(parse('3 lb'))).toBe('"3 lb": "lb" is not a unit of weight (one of kg, g)');
      expect(errorOf(parse('3mg'))).toBe('"3mg": "mg" is not a unit of weight (one of kg, g)');
      expect(errorOf(parseAttributeCell('3 kg', metric()))).toBe(
        '"3 kg": "kg" is not a unit of weight (it has no units)',
      );
    });

    it.each(['heavy', 'kg', 'kg 3', 'three kg'])('refuses %j', (text) => {
      expect(errorOf(parse(text))).toBe(`${JSON.stringify(text)} is not a measure (write 3.5 kg; one of kg, g)`);
    });

    it('refuses non-finite numbers, booleans and dates', () => {
      expect(errorOf(parse(Infinity, ['kg']))).toContain('is not a measure');
      expect(errorOf(parse(true, ['kg']))).toContain('"true" is not a measure');
      expect(errorOf(parse(utc('2024-01-31T00:00:00Z'), ['kg']))).toContain('is not a measure');
    });
  });
});
