import { ValidationError } from '@pim/errors';
import { splitNestedFilters } from './nested-filters';

describe('splitNestedFilters', () => {
  it('moves the parameters under the prefix into filters, with the operator of their suffix', () => {
    const { rest, nested } = splitNestedFilters(
      {
        page: '2',
        code: 'x',
        'attributes.color_in': 'red,blue',
        'attributes.net_weight': '3',
        'attributes.size_gte': '4',
      },
      'attributes.',
    );
    expect(rest).toEqual({ page: '2', code: 'x' });
    expect(nested).toEqual([
      { field: 'attributes.color', op: 'in', values: ['red', 'blue'] },
      { field: 'attributes.net_weight', op: 'eq', values: ['3'] },
      { field: 'attributes.size', op: 'gte', values: ['4'] },
    ]);
  });

  it('leaves the query alone without a prefix and refuses a repeated nested parameter', () => {
    expect(splitNestedFilters({ 'attributes.x': '1' }, undefined)).toEqual({
      rest: { 'attributes.x': '1' },
      nested: [],
    });
    expect(() => splitNestedFilters({ 'attributes.x': ['1', '2'] }, 'attributes.')).toThrow(ValidationError);
  });
});
