import { coveringFilter, subjectMatches } from './subject.filter';

describe('subjectMatches', () => {
  it('matches literal tokens, `*` for one token and a final `>` for one or more', () => {
    expect(subjectMatches('pim.catalog.products.updated', 'pim.catalog.products.updated')).toBe(true);
    expect(subjectMatches('pim.catalog.products.updated', 'pim.catalog.products.deleted')).toBe(false);
    expect(subjectMatches('pim.*.products.*', 'pim.catalog.products.deleted')).toBe(true);
    expect(subjectMatches('pim.*.products.*', 'pim.catalog.brands.deleted')).toBe(false);
    expect(subjectMatches('pim.>', 'pim.catalog.products.updated')).toBe(true);
    expect(subjectMatches('t1a.pim.>', 'pim.catalog.products.updated')).toBe(false);
  });

  it('wants as many tokens as the filter has (one or more for `>`)', () => {
    expect(subjectMatches('pim.>', 'pim')).toBe(false);
    expect(subjectMatches('pim.*', 'pim.catalog.products')).toBe(false);
    expect(subjectMatches('pim.catalog.products', 'pim.catalog')).toBe(false);
    expect(subjectMatches('pim.catalog', 'pim.catalog.products')).toBe(false);
    expect(subjectMatches('>', 'pim')).toBe(true);
  });
});

describe('coveringFilter', () => {
  const covers = (filters: string[], subjects: string[]) => {
    const f = coveringFilter(filters);
    return subjects.every((s) => f === undefined || subjectMatches(f, s));
  };

  it('is the filter itself when there is one', () => {
    expect(coveringFilter(['t1.pim.>'])).toBe('t1.pim.>');
    expect(coveringFilter(['a.b', 'a.b'])).toBe('a.b');
    expect(coveringFilter([])).toBeUndefined();
  });

  it('puts `*` where filters of the same length differ', () => {
    expect(coveringFilter(['t1.pim.catalog.products.updated', 't1.pim.orders.orders.created'])).toBe('t1.pim.*.*.*');
    expect(coveringFilter(['pim.catalog.products.updated', 'pim.catalog.products.deleted'])).toBe(
      'pim.catalog.products.*',
    );
  });

  it('falls back to the common leading tokens and `>`', () => {
    expect(coveringFilter(['pim.catalog.>', 'pim.orders.orders.created'])).toBe('pim.>');
    expect(coveringFilter(['a.b', 'a.b.c'])).toBe('a.>');
    expect(coveringFilter(['a.>', 'a.b.c'])).toBe('a.>');
    expect(coveringFilter(['a.b', 'x.y.z'])).toBeUndefined();
  });

  it('matches everything the filters match', () => {
    const cases: [string[], string[]][] = [
      [
        ['a.b', 'a.b.c'],
        ['a.b', 'a.b.c'],
      ],
      [
        ['a.*.c', 'a.b.>'],
        ['a.x.c', 'a.b.c.d', 'a.b.x'],
      ],
      [['p.pim.catalog.products.updated', 'p.pim.catalog.brands.updated'], ['p.pim.catalog.brands.updated']],
    ];
    for (const [filters, subjects] of cases) expect(covers(filters, subjects)).toBe(true);
  });
});
