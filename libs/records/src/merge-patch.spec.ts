import { mergePatch } from './merge-patch';

describe('mergePatch (RFC 7396)', () => {
  it('replaces, adds and removes members, merging objects recursively', () => {
    const target = { code: 'A', name: { pt: 'Café', en: 'Coffee' }, tags: ['x', 'y'], parent_id: 'p' };
    expect(mergePatch(target, { name: { en: null, es: 'Café' }, tags: ['z'], parent_id: null })).toEqual({
      code: 'A',
      name: { pt: 'Café', es: 'Café' },
      tags: ['z'],
    });
    expect(target).toEqual({ code: 'A', name: { pt: 'Café', en: 'Coffee' }, tags: ['x', 'y'], parent_id: 'p' });
  });

  it('follows the RFC examples for non-object values', () => {
    expect(mergePatch({ a: 'b' }, { a: 'c' })).toEqual({ a: 'c' });
    expect(mergePatch({ a: ['b'] }, { a: 'c' })).toEqual({ a: 'c' });
    expect(mergePatch({ a: 'foo' }, 'bar')).toBe('bar');
    expect(mergePatch({ e: null }, { a: 1 })).toEqual({ e: null, a: 1 });
    expect(mergePatch([1, 2], { a: 'b', c: null })).toEqual({ a: 'b' });
    expect(mergePatch({}, { a: { bb: { ccc: null } } })).toEqual({ a: { bb: {} } });
  });
});
