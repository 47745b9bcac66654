import { OrmUtils } from 'typeorm/util/OrmUtils';
import { installJsonCompare, jsonEqual } from './json-compare';

describe('JSON comparison of json and jsonb columns', () => {
  const free = () => JSON.parse('{"constructor":"x","toString":"y","hasOwnProperty":"z","n":{"valueOf":[1,null]}}');

  it('compares by own members, in any order, members named like Object.prototype’s included', () => {
    expect(jsonEqual(free(), free())).toBe(true);
    expect(jsonEqual({ a: 1, b: [2, { c: 'd' }] }, { b: [2, { c: 'd' }], a: 1 })).toBe(true);
    expect(jsonEqual(free(), { ...free(), hasOwnProperty: 'other' })).toBe(false);
    expect(jsonEqual({ constructor: 'x' }, {})).toBe(false);
    expect(jsonEqual({}, { constructor: 'x' })).toBe(false);
    expect(jsonEqual([1, 2], [2, 1])).toBe(false);
    expect(jsonEqual({ a: 1 }, { a: '1' })).toBe(false);
    expect(jsonEqual(null, {})).toBe(false);
    expect(jsonEqual(Object.assign(Object.create(null) as object, { a: 1 }), { a: 1 })).toBe(true);
  });

  it('leaves values JSON cannot hold to TypeORM', () => {
    expect(jsonEqual({ at: new Date(0) }, { at: new Date(0) })).toBeUndefined();
    expect(jsonEqual(Buffer.from('a'), Buffer.from('a'))).toBeUndefined();
  });

  it('keeps TypeORM’s change detection from failing on a member named hasOwnProperty', () => {
    // TypeORM 1.1.1's own comparison calls `value.hasOwnProperty(key)`.
    expect(() => OrmUtils.deepCompare(free(), free())).toThrow('hasOwnProperty is not a function');
    installJsonCompare();
    expect(OrmUtils.deepCompare(free(), free())).toBe(true);
    expect(OrmUtils.deepCompare(free(), { ...free(), toString: 'w' })).toBe(false);
    expect(OrmUtils.deepCompare({ at: new Date(5) }, { at: new Date(5) })).toBe(true);
    expect(OrmUtils.deepCompare({ at: new Date(0) }, { at: new Date(86_400_000) })).toBe(false);
  });
});
