import document from '../../../libs/api-client/openapi.json';
import { resolverOf, validate, type Schema } from './schema';

const doc = document as unknown as { components: { schemas: Record<string, Schema> } };
const resolve = resolverOf(doc);
const errorSchema: Schema = { $ref: '#/components/schemas/Error' };
const ok = {
  code: 400,
  kind: 'validation',
  name: 'ValidationError',
  title: 'Invalid webhook',
  message: 'url must be an absolute URL',
  solution: 'Correct the fields named in details',
  details: [{ field: 'url', message: 'must be an absolute URL' }],
  request_id: '0b5f3a4e-8c1d-4f7a-9e2b-6d3c1a2b4c5d',
};

describe("validate against the document's Error schema", () => {
  it('passes an error object and names what breaks one', () => {
    expect(validate(errorSchema, ok, resolve)).toEqual([]);
    expect(validate(errorSchema, { ...ok, message: 'm'.repeat(4_001) }, resolve)).toEqual([
      '(root).message: is 4001 characters, longer than 4000',
    ]);
    expect(validate(errorSchema, { ...ok, details: [{ field: 'f'.repeat(201), message: 'x' }] }, resolve)).toEqual([
      '(root).details.0.field: is 201 characters, longer than 200',
    ]);
    const { solution: _s, ...noSolution } = ok;
    expect(validate(errorSchema, noSolution, resolve)).toEqual(['(root): lacks solution']);
    expect(validate(errorSchema, { ...ok, kind: 'oops', extra: 1 }, resolve)).toEqual([
      expect.stringContaining('(root).kind: "oops" is not one of'),
      '(root): has extra, which the schema does not allow',
    ]);
    expect(validate(errorSchema, { ...ok, request_id: 'a b' }, resolve)).toEqual([
      expect.stringMatching(/^\(root\)\.request_id: does not match/),
    ]);
    expect(validate(errorSchema, 'text', resolve)).toEqual(['(root): is string, not object']);
  });

  it('counts characters, not UTF-16 units, and refuses keywords it does not check', () => {
    expect(validate({ type: 'string', maxLength: 2 }, '😀😀', resolve)).toEqual([]);
    expect(() => validate({ type: 'string', not: {} } as Schema, 'x', resolve)).toThrow(/does not know not/);
    expect(() => resolve({ $ref: '#/components/schemas/Nope' })).toThrow(/cannot resolve/);
  });
});
