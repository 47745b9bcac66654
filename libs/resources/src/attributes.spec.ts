import {
  ATTRIBUTE_TYPES,
  TYPE_CONFIG_KEYS,
  attributeSchemas,
  typeConfigProblems,
  type AttributeInput,
} from './attributes';

const base = { key: 'voltage', association: 'product', protected_by_lgpd: false } as const;
/** The problems of an attribute body as `field message` lines. */
const problems = (body: Record<string, unknown>): string[] => {
  const r = attributeSchemas.input.safeParse({ ...base, ...body });
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')} ${i.message}`);
};

describe('attribute input: type_config checked against the type', () => {
  it('takes a good configuration of every type', () => {
    const good: Record<string, Record<string, unknown>> = {
      text: { min_length: 1, max_length: 80, pattern: '^[A-Z]', localizable: true },
      textarea: { max_length: 5000 },
      number: { min: 0, max: 10, type: 'decimal', decimals: 2 },
      boolean: {},
      date: { min: '2024-01-01', max: '2024-12-31' },
      datetime: { min: '2024-01-01T00:00:00Z', max: '2024-01-01T00:00:00-03:00' },
      select: {},
      multiselect: {},
      price: { currencies: ['BRL', 'USD'] },
      metric: { units: ['kg', 'g'] },
      url: {},
      email: {},
      image: {},
      file: { enable_ia_generation: true, prompt_ia_instruction: 'Describe it' },
    };
    expect(Object.keys(good).sort()).toEqual([...ATTRIBUTE_TYPES].sort());
    for (const [type, type_config] of Object.entries(good))
      expect([type, problems({ type, type_config })]).toEqual([type, []]);
  });

  it('names the key of every bad setting', () => {
    expect(problems({ type: 'text', type_config: { min_length: 5, max_length: 3 } })).toEqual([
      'type_config.max_length must be ≥ min_length (5)',
    ]);
    expect(problems({ type: 'text', type_config: { pattern: '([a-z' } })[0]).toMatch(
      /^type_config\.pattern must be a valid regular expression: /,
    );
    expect(problems({ type: 'number', type_config: { min: 5, max: 1 } })).toEqual([
      'type_config.max must be ≥ min (5)',
    ]);
    expect(problems({ type: 'number', type_config: { min: 'a' } })).toEqual([
      'type_config.min must be a number for number attributes',
    ]);
    expect(problems({ type: 'number', type_config: { type: 'integer', decimals: 2 } })).toEqual([
      'type_config.decimals must be 0 or absent for integer attributes',
    ]);
    expect(problems({ type: 'number', type_config: { type: 'integer', min: 0.5 } })).toEqual([
      'type_config.min must be a whole number for integer attributes',
    ]);
    expect(problems({ type: 'date', type_config: { min: '2024-02-30' } })).toEqual([
      'type_config.min must be a date such as 2024-01-31 for date attributes',
    ]);
    expect(problems({ type: 'date', type_config: { min: '2024-02-01', max: '2024-01-01' } })).toEqual([
      'type_config.max must be ≥ min (2024-02-01)',
    ]);
    expect(
      problems({ type: 'datetime', type_config: { min: '2024-01-01T00:00:00-03:00', max: '2024-01-01T01:00:00Z' } }),
    ).toEqual(['type_config.max must be ≥ min (2024-01-01T00:00:00-03:00)']);
    expect(problems({ type: 'price', type_config: { currencies: ['BRL', 'XYZ', 'BRL'] } })).toEqual(
      expect.arrayContaining(['type_config.currencies.1 must be an ISO 4217 currency code such as BRL']),
    );
    expect(problems({ type: 'metric' })).toEqual([
      'type_config.units is required for metric attributes (the units a measure may be in)',
    ]);
    expect(problems({ type: 'metric', type_config: { units: [] } })[0]).toMatch(/^type_config\.units /);
  });

  it('refuses keys that belong to another type (text when no type is given) and keys of no type', () => {
    expect(problems({ type: 'number', type_config: { max_length: 3 } })).toEqual([
      'type_config.max_length is not a setting of number attributes (they take min, max, type, decimals, enable_ia_generation, prompt_ia_instruction)',
    ]);
    expect(problems({ type_config: { currencies: ['BRL'] } })[0]).toMatch(
      /^type_config\.currencies is not a setting of text attributes/,
    );
    expect(problems({ type: 'boolean', type_config: { colour: 'red' } })).toEqual([
      'type_config Unrecognized key: "colour"',
    ]);
  });

  it('allows unique only where one value can name one product', () => {
    expect(problems({ type: 'text', unique: true })).toEqual([]);
    expect(problems({ type: 'boolean', unique: true })).toEqual([
      'unique cannot be true for boolean attributes (only text, number, date, datetime, url, email)',
    ]);
    expect(problems({ type: 'text', unique: true, type_config: { localizable: true } })).toEqual([
      'unique cannot be true for a localizable attribute',
    ]);
  });

  it('requires key, association and protected_by_lgpd; everything else has a default', () => {
    const r = attributeSchemas.input.safeParse({});
    expect(r.success).toBe(false);
    expect(r.error!.issues.map((i) => i.path.join('.')).sort()).toEqual(['association', 'key', 'protected_by_lgpd']);
    expect(problems({ key: '1abc' })[0]).toMatch(/^key /);
    expect(problems({ association: 'variant' })[0]).toMatch(/^association /);
  });

  it('lists which keys each type takes', () => {
    const input: AttributeInput = { ...base, type: 'number', type_config: { min: 1 } };
    expect(typeConfigProblems(input)).toEqual([]);
    expect(TYPE_CONFIG_KEYS.select).toEqual([]);
  });
});

describe('attribute input: the key', () => {
  it('is refused as __proto__, the one key no product attributes object can keep, and taken as constructor', () => {
    expect(problems({ type: 'text', key: '__proto__' })).toEqual(['key the key __proto__ cannot be stored; rename it']);
    expect(problems({ type: 'text', key: 'constructor' })).toEqual([]);
  });
});
