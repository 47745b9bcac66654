import document from '../../../libs/api-client/openapi.json';
import { ROUNDS_TO_COVER, buildCase, caseContext, operationAt, queryWindow, type CaseContext } from './cases';
import { FixtureIds, collectionOfField } from './fixtures';
import { operationsOf, parameterKey, type ApiDocument } from './operations';
import { resolverOf } from './schema';

const doc = document as unknown as ApiDocument;
const ops = operationsOf(doc);
const KEY = `pim_fuzzfuzzfuzz_${'A'.repeat(43)}`;

function context(seed = 'unit'): CaseContext {
  const fixtures = new FixtureIds();
  ['a', 'b', 'c'].forEach((x) => fixtures.add('brands', x.repeat(24)));
  fixtures.add('attributes', '1'.repeat(24));
  fixtures.add(`attributes/${'1'.repeat(24)}/options`, '2'.repeat(24));
  return caseContext({ seed, ops, resolve: resolverOf(doc), fixtures, apiKey: KEY, host: '127.0.0.1:1' });
}

describe('the cases of a run', () => {
  it('reads every operation and parameter of the document', () => {
    expect(ops.length).toBeGreaterThan(150);
    expect(ops.flatMap((o) => o.parameters).length).toBeGreaterThan(2_000);
    expect(new Set(ops.map((o) => o.id)).size).toBe(ops.length);
  });

  it('calls every operation once a round, and sends every query parameter within ROUNDS_TO_COVER rounds', () => {
    const seen = new Set(Array.from({ length: ops.length }, (_, i) => operationAt('s', ops, ops.length * 3 + i).op.id));
    expect(seen.size).toBe(ops.length);
    for (const op of ops) {
      const query = op.parameters.filter((p) => p.in === 'query');
      const sent = new Set(Array.from({ length: ROUNDS_TO_COVER }, (_, round) => queryWindow(query, round)).flat());
      expect(sent.size).toBe(query.length);
    }
  });

  it('builds the same case from the same seed and index, and another from another seed', () => {
    const a = buildCase(context(), 42);
    expect(buildCase(context(), 42)).toEqual(a);
    expect(buildCase(context('other'), 42).request).not.toEqual(a.request);
  });

  it('puts real ids in paths (a child under its parent) and aims DELETE past the first records', () => {
    const ctx = context();
    const cases = Array.from({ length: ops.length * 4 }, (_, i) => buildCase(ctx, i)).filter((c) => c.kind === 'valid');
    const option = cases.find((c) => c.op.id === 'GET /api/v1/attributes/{id}/options/{optionId}');
    expect(option?.request.path).toMatch(new RegExp(`^/api/v1/attributes/${'1'.repeat(24)}/options/${'2'.repeat(24)}`));
    for (const c of cases.filter((x) => x.op.id === 'DELETE /api/v1/brands/{id}'))
      expect(c.request.path).toBe(`/api/v1/brands/${'c'.repeat(24)}`);
    for (const c of cases) {
      expect(c.request.headers.authorization).toBe(`Bearer ${KEY}`);
      expect(c.request.headers['x-request-id']).toBe(`fz-unit-${c.index}`);
      for (const p of c.op.parameters.filter((x) => x.in === 'path'))
        expect(c.parameters).toContain(parameterKey(c.op, p));
    }
  });

  it('mutates most cases, each kind on an operation it applies to', () => {
    const ctx = context();
    const cases = Array.from({ length: 2_000 }, (_, i) => buildCase(ctx, i));
    const kinds = new Set(cases.map((c) => c.kind));
    expect(kinds.size).toBeGreaterThan(40);
    expect(cases.filter((c) => c.mutated).length / cases.length).toBeGreaterThan(0.5);
    for (const c of cases.filter((x) => x.kind.startsWith('multipart-'))) expect(c.op.id).toBe('POST /api/v1/imports');
    for (const c of cases.filter((x) => x.kind.startsWith('wire:'))) {
      expect(c.request.raw?.bytes.length).toBeGreaterThan(0);
      expect(c.request.raw?.bytes.toString('latin1')).toContain(`\r\nX-Request-Id: fz-unit-${c.index}\r\n`);
    }
    for (const c of cases) expect(c.request.headers['x-request-id']).toBe(`fz-unit-${c.index}`);
  });

  it('names the collection a body field points at', () => {
    expect(collectionOfField(['brand_id'])).toBe('brands');
    expect(collectionOfField(['kit_products', '0', 'id'])).toBe('products');
    expect(collectionOfField(['disassociate_kit_services', '1', 'id'])).toBe('products');
    expect(collectionOfField(['name', 'en'])).toBeUndefined();
  });
});
