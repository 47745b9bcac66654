import { ValidationError } from '@pim/errors';
import { MAX_JSON_DEPTH, jsonGuard, jsonProblem, printablePlace } from './json-guard';

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
});
