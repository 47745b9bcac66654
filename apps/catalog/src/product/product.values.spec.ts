import { ATTRIBUTE_TYPES, type AttributeType, type TypeConfig } from '@pim/resources';
import { decimalsOf, validateAttributeValue, type ValueRule } from './product.values';

const check = (type: AttributeType, value: unknown, type_config: TypeConfig = {}, options?: string[]) =>
  validateAttributeValue({ type, type_config, options }, value, 'attributes.x');
const fields = (problems: { field: string }[]) => problems.map((p) => p.field);

/** For each type: a rule, values it takes, and values it refuses (with the field each problem names). */
const cases: { type: AttributeType; rule?: Partial<ValueRule>; good: unknown[]; bad: [unknown, string[]][] }[] = [
  {
    type: 'text',
    rule: { type_config: { min_length: 2, max_length: 5, pattern: '^[a-zé]+$' } },
    good: ['ab', 'café', 'abcde'],
    bad: [
      [1, ['attributes.x']],
      ['a', ['attributes.x']],
      ['abcdef', ['attributes.x']],
      ['AB', ['attributes.x']],
      [{ en: 'ab' }, ['attributes.x']],
    ],
  },
  {
    type: 'textarea',
    rule: { type_config: { localizable: true, max_length: 3 } },
    good: [{ pt: 'olá', en: 'hi' }, {}],
    bad: [
      ['hi', ['attributes.x']],
      [{ pt: 'longo' }, ['attributes.x.pt']],
      [{ 'not a language': 'x', en: 1 }, ['attributes.x.not a language', 'attributes.x.en']],
    ],
  },
  {
    type: 'number',
    rule: { type_config: { min: 0, max: 10, decimals: 2 } },
    good: [0, 10, 2.5, 9.99],
    bad: [
      ['5', ['attributes.x']],
      [Number.NaN, ['attributes.x']],
      [-1, ['attributes.x']],
      [10.01, ['attributes.x']],
      [1.234, ['attributes.x']],
    ],
  },
  {
    type: 'boolean',
    good: [true, false],
    bad: [
      ['true', ['attributes.x']],
      [0, ['attributes.x']],
    ],
  },
  {
    type: 'date',
    rule: { type_config: { min: '2024-01-01', max: '2024-12-31' } },
    good: ['2024-02-29', '2024-01-01', '2024-12-31'],
    bad: [
      ['2023-12-31', ['attributes.x']],
      ['2024-02-30', ['attributes.x']],
      ['2024-03-01T00:00:00Z', ['attributes.x']],
      [20240301, ['attributes.x']],
    ],
  },
  {
    type: 'datetime',
    rule: { type_config: { min: '2024-01-01T00:00:00Z' } },
    good: ['2024-01-01T00:00:00Z', '2024-01-01T00:30:00.123-03:00'],
    bad: [
      ['2023-12-31T23:00:00-00:30', ['attributes.x']],
      ['2024-01-01T10:00:00', ['attributes.x']],
      ['2024-01-01', ['attributes.x']],
    ],
  },
  {
    type: 'select',
    rule: { options: ['red', 'blue'] },
    good: ['red', 'blue'],
    bad: [
      ['green', ['attributes.x']],
      [['red'], ['attributes.x']],
      [1, ['attributes.x']],
    ],
  },
  {
    type: 'multiselect',
    rule: { options: ['red', 'blue', 'green'] },
    good: [[], ['red'], ['blue', 'red']],
    bad: [
      ['red', ['attributes.x']],
      [
        ['red', 'pink', 'red', 3],
        ['attributes.x.1', 'attributes.x.2', 'attributes.x.3'],
      ],
    ],
  },
  {
    type: 'price',
    rule: { type_config: { currencies: ['BRL', 'USD'] } },
    good: [
      { amount: 10.5, currency: 'BRL' },
      { amount: 0, currency: 'USD' },
    ],
    bad: [
      [10, ['attributes.x']],
      [{ amount: 1, currency: 'EUR' }, ['attributes.x.currency']],
      [{ amount: -1, currency: 'XYZ' }, ['attributes.x.amount', 'attributes.x.currency']],
      [{ amount: 1 }, ['attributes.x.currency']],
      [{ amount: 1, currency: 'BRL', tax: 2 }, ['attributes.x.tax']],
    ],
  },
  {
    type: 'metric',
    rule: { type_config: { units: ['kg', 'g'] } },
    good: [
      { amount: 1.5, unit: 'kg' },
      { amount: -3, unit: 'g' },
    ],
    bad: [
      [{ amount: '1', unit: 'lb' }, ['attributes.x.amount', 'attributes.x.unit']],
      ['1 kg', ['attributes.x']],
      [{ unit: 'kg' }, ['attributes.x.amount']],
    ],
  },
  {
    type: 'url',
    good: ['https://example.com/a?b=c', 'http://localhost:3000/x'],
    bad: [
      ['example.com', ['attributes.x']],
      ['javascript:alert(1)', ['attributes.x']],
      [`https://e.com/${'a'.repeat(2_048)}`, ['attributes.x']],
      [1, ['attributes.x']],
    ],
  },
  {
    type: 'email',
    good: ['ana@example.com', 'a.b+c@sub.example.com.br'],
    bad: [
      ['ana', ['attributes.x']],
      ['ana@example', ['attributes.x']],
      ['a b@example.com', ['attributes.x']],
    ],
  },
  {
    type: 'image',
    good: ['https://cdn.example.com/p/1.png'],
    bad: [
      ['/relative.png', ['attributes.x']],
      ['ftp://example.com/a.png', ['attributes.x']],
    ],
  },
  {
    type: 'file',
    good: ['https://cdn.example.com/manual.pdf'],
    bad: [
      ['manual.pdf', ['attributes.x']],
      [{ url: 'https://x.com' }, ['attributes.x']],
    ],
  },
];

describe('validateAttributeValue', () => {
  it('covers every attribute type', () => {
    expect(cases.map((c) => c.type).sort()).toEqual([...ATTRIBUTE_TYPES].sort());
  });

  describe.each(cases)('$type', ({ type, rule, good, bad }) => {
    const validate = (value: unknown) => validateAttributeValue({ type, ...rule }, value, 'attributes.x');

    it.each(good.map((v) => [JSON.stringify(v), v]))('takes %s', (_shown, value) => {
      expect(validate(value)).toEqual([]);
    });

    it.each(bad.map(([v, f]) => [JSON.stringify(v)?.slice(0, 60), v, f]))(
      'refuses %s, naming %j',
      (_shown, value, expected) => {
        const problems = validate(value);
        expect(fields(problems)).toEqual(expected);
        for (const p of problems) expect(p.message.length).toBeGreaterThan(0);
      },
    );

    it('takes null and undefined as no value', () => {
      expect(validate(null)).toEqual([]);
      expect(validate(undefined)).toEqual([]);
    });
  });

  it('says what is wrong in words a caller can act on', () => {
    expect(check('text', 'abcdef', { max_length: 5 })).toEqual([
      { field: 'attributes.x', message: 'must have at most 5 characters, has 6' },
    ]);
    expect(check('number', 1.5, { type: 'integer' })).toEqual([
      { field: 'attributes.x', message: 'must be a whole number' },
    ]);
    expect(check('number', 11, { max: 10 })).toEqual([{ field: 'attributes.x', message: 'must be ≤ 10' }]);
    expect(check('select', 'green', {}, ['red', 'blue'])[0].message).toBe(
      '"green" is not an option of the attribute (one of "red", "blue")',
    );
    expect(check('select', 'red', {}, [])[0].message).toContain('the attribute has no options');
    expect(check('multiselect', ['red', 'red'], {}, ['red'])).toEqual([
      { field: 'attributes.x.1', message: 'repeats "red"' },
    ]);
    expect(check('price', { amount: 1, currency: 'EUR' }, { currencies: ['BRL'] })[0].message).toBe(
      "must be one of the attribute's currencies (BRL)",
    );
  });

  it('counts characters, not UTF-16 units, and applies a pattern in Unicode mode', () => {
    expect(check('text', '😀😀', { max_length: 2 })).toEqual([]);
    expect(check('text', 'ção', { pattern: '^\\p{L}+$' })).toEqual([]);
    expect(check('text', 'ab1', { pattern: '^\\p{L}+$' })).toHaveLength(1);
  });

  it('takes any ISO 4217 currency when the attribute names none, and any option set (iterable)', () => {
    expect(check('price', { amount: 3, currency: 'JPY' })).toEqual([]);
    expect(check('price', { amount: 3, currency: 'ABC' })).toHaveLength(1);
    expect(validateAttributeValue({ type: 'select', options: new Set(['a']) }, 'a', 'v')).toEqual([]);
  });

  it('treats a metric attribute without units as taking none', () => {
    expect(fields(check('metric', { amount: 1, unit: 'kg' }))).toEqual(['attributes.x.unit']);
  });

  it('counts the decimals of a number as JSON writes it', () => {
    expect([1, 1.5, 1.25, 0.001, 1e-7, 1.5e-7, 1e21, -2.75].map(decimalsOf)).toEqual([0, 1, 2, 3, 7, 8, 0, 2]);
  });
});
