import { ValidationError } from '@pim/errors';
import { MAX_JSON_DEPTH, jsonGuard, jsonProblem, keyProblem, printablePlace, refusalOf } from './json-guard';

/** A value nested `depth` arrays deep around `inner`. */
const nested = (depth: number, inner: unknown = 1): unknown => {
  let v = inner;
  for (let i = 0; i < depth; i++) v = [v];
  return v;
};

describe('JSON guard', () => {
  it('finds the first NUL in strings and keys, naming the place', () => {
    expect(jsonProblem({ name: { en: 'ok', pt: 'a\u0000b' } })).toEqual({ field: 'name.pt', kind: 'nul' });
    expect(jsonProblem({ items: [{ code: 'A' }, { code: '\u0000' }] })).toEqual({ field: 'items.1.code', kind: 'nul' });
    expect(jsonProblem({ attributes: { 'k\u0000': 1 } })).toEqual({ field: 'attributes.k\u0000', kind: 'nul' });
    expect(jsonProblem('\u0000')).toEqual({ field: '(body)', kind: 'nul' });
    expect(jsonProblem({ name: { en: 'café ☕' }, n: 1, b: true, z: null })).toBeUndefined();
    expect(jsonProblem(undefined)).toBeUndefined();
  });

  it('finds a lone surrogate, and lets a whole pair (an emoji) through', () => {
    expect(jsonProblem({ items: [{ name: { pt: '\ud800' } }] })).toEqual({
      field: 'items.0.name.pt',
      kind: 'surrogate',
    });
    expect(jsonProblem({ a: 'x\udfffy' })).toEqual({ field: 'a', kind: 'surrogate' });
    expect(jsonProblem({ a: '😀 \ud83d\ude00 👩‍👩‍👧' })).toBeUndefined();
  });

  it('takes nesting up to the limit and refuses deeper, without exhausting the stack on a huge depth', () => {
    expect(jsonProblem(nested(MAX_JSON_DEPTH))).toBeUndefined();
    expect(jsonProblem(nested(MAX_JSON_DEPTH + 1))).toMatchObject({ kind: 'depth' });
    expect(jsonProblem({ items: [nested(100_000)] })).toEqual({
      field: `items.0${'.0'.repeat(MAX_JSON_DEPTH - 2)}`,
      kind: 'depth',
    });
  });

  it('refuses a path, a query or a body with a NUL, or a body too deep, with a 400 naming the place', () => {
    const run = (req: { path?: string; query?: unknown; body?: unknown }) => {
      let passed: unknown = 'not called';
      jsonGuard()({ path: '/brands', query: {}, ...req } as never, {} as never, (err?: unknown) => (passed = err));
      return passed as ValidationError | undefined;
    };
    expect(run({ body: { name: 'fine' } })).toBeUndefined();
    const body = run({ body: { name: 'a\u0000' } });
    expect(body).toBeInstanceOf(ValidationError);
    expect(body?.details).toEqual([{ field: 'name', message: 'must not contain the NUL character (U+0000)' }]);
    expect(run({ query: { _search: '\u0000' } })?.details?.[0].field).toBe('_search');
    expect(run({ path: '/orders/%00/comments' })?.details?.[0].field).toBe('(path)');
    expect(run({ body: { items: [nested(40)] } })).toMatchObject({ title: 'Body nested too deeply' });
  });

  it('names a key holding a lone surrogate or a NUL by its escape, so the error object holds neither', () => {
    const run = (body: unknown) => {
      let passed: ValidationError | undefined;
      jsonGuard()({ path: '/brands', query: {}, body } as never, {} as never, (err?: unknown) => {
        passed = err as ValidationError;
      });
      return passed!;
    };
    const surrogate = run({ name: { 'en\ud800': 'x' } });
    expect(surrogate.message).toBe('name.en\\ud800 is not valid Unicode text: it holds half of a surrogate pair');
    expect(surrogate.details).toEqual([{ field: 'name.en\\ud800', message: 'holds a lone surrogate' }]);
    expect(run({ 'k\u0000': 1 }).details?.[0].field).toBe('k\\u0000');
    expect(printablePlace('items.0.name.😀')).toBe('items.0.name.😀');
  });

  it('finds a __proto__ key, which JSON.parse keeps as an own member, at any depth', () => {
    expect(jsonProblem(JSON.parse('{"metadata":{"a":1,"__proto__":{"x":1}}}'))).toEqual({
      field: 'metadata.__proto__',
      kind: 'proto',
    });
    expect(jsonProblem(JSON.parse('{"items":[{"code":"A"},{"code":"B","__proto__":null}]}'))).toEqual({
      field: 'items.1.__proto__',
      kind: 'proto',
    });
    expect(jsonProblem(JSON.parse('{"__proto__":"x"}'))).toEqual({ field: '__proto__', kind: 'proto' });
    // The query parser ("simple": node:querystring) builds a null-prototype object, where it is an own key too.
    const query = Object.assign(Object.create(null) as Record<string, unknown>, { limit: '1' });
    Object.defineProperty(query, '__proto__', { value: '1', enumerable: true });
    expect(jsonProblem(query)).toEqual({ field: '__proto__', kind: 'proto' });
    // A prototype set by assignment is not a key the caller sent.
    expect(jsonProblem(Object.setPrototypeOf({ a: 1 }, { b: 2 }))).toBeUndefined();
  });

  it('takes constructor, toString, hasOwnProperty and a "__proto__" value as plain data', () => {
    const body = JSON.parse(
      '{"metadata":{"constructor":"x","toString":"y","hasOwnProperty":"z","valueOf":{"__defineGetter__":1}},"note":"__proto__"}',
    );
    expect(jsonProblem(body)).toBeUndefined();
    expect(keyProblem('__proto__')).toBe('proto');
    expect(keyProblem('constructor')).toBeUndefined();
    expect(keyProblem('__proto__ ')).toBeUndefined();
    expect(keyProblem('a\u0000')).toBe('nul');
  });

  it('refuses a __proto__ key in a body or a query with a 400 naming its place and saying to rename it', () => {
    const run = (req: { query?: unknown; body?: unknown }) => {
      let passed: ValidationError | undefined;
      jsonGuard()({ path: '/orders', query: {}, ...req } as never, {} as never, (err?: unknown) => {
        passed = err as ValidationError;
      });
      return passed;
    };
    const body = run({ body: JSON.parse('{"code":"A","metadata":{"__proto__":{"admin":true}}}') });
    expect(body).toBeInstanceOf(ValidationError);
    expect(body).toMatchObject({
      status: 400,
      title: 'Key cannot be stored',
      message: expect.stringContaining('metadata.__proto__: the key __proto__ cannot be stored'),
      solution: expect.stringContaining('Rename the key __proto__'),
      details: [{ field: 'metadata.__proto__', message: 'the key __proto__ cannot be stored; rename it' }],
    });
    const query = Object.create(null) as Record<string, unknown>;
    Object.defineProperty(query, '__proto__', { value: '1', enumerable: true });
    expect(run({ query })?.details).toEqual([
      { field: '__proto__', message: 'the key __proto__ cannot be stored; rename it' },
    ]);
    expect(refusalOf({ field: 'a\u0000.__proto__', kind: 'proto' }).details?.[0].field).toBe('a\\u0000.__proto__');
  });
});
