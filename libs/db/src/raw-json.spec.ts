import { RawJson, stringifyWithRaw } from './raw-json';

describe('stringifyWithRaw', () => {
  it('writes RawJson values as their text, anywhere and any number of times, and the rest as JSON.stringify does', () => {
    const inner = { a: [1, { b: 'Café "x"' }], n: null };
    const value = {
      id: 'x',
      look: '\u0000raw:',
      data: new RawJson(JSON.stringify(inner)),
      list: [new RawJson('[]'), new RawJson('{"k":1}')],
    };
    expect(JSON.parse(stringifyWithRaw(value))).toEqual({
      id: 'x',
      look: '\u0000raw:',
      data: inner,
      list: [[], { k: 1 }],
    });
    expect(stringifyWithRaw({ plain: [1, 'two'] })).toBe(JSON.stringify({ plain: [1, 'two'] }));
    expect(stringifyWithRaw(new RawJson('{"top":true}'))).toBe('{"top":true}');
  });
});
