import { ValidationError } from '@pim/errors';
import { readNestedFilter } from '@pim/query';
import { splitNestedFilters } from './nested-filters';

describe('splitNestedFilters', () => {
  it('moves the parameters under the prefix into filters as written, for the owner to read their operators', () => {
    const { rest, nested } = splitNestedFilters(
      {
        page: '2',
        code: 'x',
        'attributes.color_in': 'red,blue',
        'attributes.net_weight': '3',
        'attributes.size_gte': '4',
        'attributes.origin_in_eq': 'BR',
      },
      'attributes.',
    );
    expect(rest).toEqual({ page: '2', code: 'x' });
    expect(nested).toEqual([
      { field: 'attributes.color_in', op: 'eq', values: ['red,blue'] },
      { field: 'attributes.net_weight', op: 'eq', values: ['3'] },
      { field: 'attributes.size_gte', op: 'eq', values: ['4'] },
      { field: 'attributes.origin_in_eq', op: 'eq', values: ['BR'] },
    ]);
    // Read as every filter is when the whole key names no attribute: the last _<operator> is the operator.
    expect(nested.map((f) => readNestedFilter(f, 'attributes.'))).toEqual([
      { field: 'attributes.color', op: 'in', values: ['red', 'blue'] },
      { field: 'attributes.net_weight', op: 'eq', values: ['3'] },
      { field: 'attributes.size', op: 'gte', values: ['4'] },
      { field: 'attributes.origin_in', op: 'eq', values: ['BR'] },
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
