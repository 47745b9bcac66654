import document from '../../../libs/api-client/openapi.json';
import { caseContext, type CaseContext } from './cases';
import { DEEP_PAGES, DEEP_SKIPS, edgeCase, edgeCases, errorFileName } from './edges';
import { FixtureIds, NAMED_EXPORTS, NAMED_IMPORTS, SCRIPT_FILE_NAMES } from './fixtures';
import { operationsOf, type ApiDocument } from './operations';
import { resolverOf } from './schema';

const doc = document as unknown as ApiDocument;
const ops = operationsOf(doc);
const KEY = `pim_fuzzfuzzfuzz_${'A'.repeat(43)}`;
const exportIds = SCRIPT_FILE_NAMES.map((_, i) => `e${String(i).padStart(23, '0')}`);
const importIds = SCRIPT_FILE_NAMES.map((_, i) => `i${String(i).padStart(23, '0')}`);

function context(seed = 'unit'): CaseContext {
  const fixtures = new FixtureIds();
  fixtures.add('webhooks', 'a'.repeat(24));
  fixtures.add(`webhooks/${'a'.repeat(24)}/deliveries`, 'b'.repeat(24));
  exportIds.forEach((id) => fixtures.add(NAMED_EXPORTS, id));
  importIds.forEach((id) => fixtures.add(NAMED_IMPORTS, id));
  return caseContext({ seed, ops, resolve: resolverOf(doc), fixtures, apiKey: KEY, host: '127.0.0.1:1' });
}

describe('the edge cases every run sends', () => {
  const cases = edgeCases(context());
  const lists = ops.filter(
    (o) =>
      o.method === 'GET' && ['page', 'skip'].every((n) => o.parameters.some((p) => p.in === 'query' && p.name === n)),
  );

  it('are numbered -1, -2, … and found again by index, the same for every seed but the ids they pick', () => {
    expect(cases.map((c) => c.index)).toEqual(cases.map((_, i) => -(i + 1)));
    expect(edgeCase(context(), -3)).toEqual(cases[2]);
    expect(() => edgeCase(context(), -(cases.length + 1))).toThrow(/no edge case/);
    const other = edgeCases(context('other'));
    expect(other.map((c) => `${c.op.id} ${c.note}`)).toEqual(cases.map((c) => `${c.op.id} ${c.note}`));
    for (const c of cases) expect(c.request.headers['x-request-id']).toBe(`fz-unit-${c.index}`);
  });

  it('send offsets around 2^31 and 2^53 to every list', () => {
    expect(lists.length).toBeGreaterThan(20);
    for (const op of lists) {
      const paths = cases.filter((c) => c.op.id === op.id).map((c) => c.request.path.split('?')[1]);
      expect(paths).toEqual([
        ...DEEP_SKIPS.map((s) => `skip=${s}`),
        ...DEEP_PAGES.map(([page, limit]) => `page=${page}&limit=${limit}`),
      ]);
    }
    expect(DEEP_SKIPS).toEqual(expect.arrayContaining(['2147483648', '9007199254740992']));
    const deliveries = cases.find((c) => c.op.id === 'GET /api/v1/webhooks/{id}/deliveries');
    expect(deliveries?.request.path).toMatch(new RegExp(`^/api/v1/webhooks/${'a'.repeat(24)}/deliveries\\?`));
    // Windows past 2^31 - 1 are to be refused (their storage is compared); the others are not.
    const products = cases.filter((c) => c.op.id === 'GET /api/v1/products');
    expect(products.map((c) => c.mutated)).toEqual([
      false,
      true,
      true,
      true,
      true,
      false,
      true,
      false,
      true,
      true,
      true,
      true,
      true,
    ]);
  });

  it('upload and export files named in every script, then download the named fixtures by their names', () => {
    const named = cases.filter((c) => c.kind === 'edge:file-name');
    for (const [i, name] of SCRIPT_FILE_NAMES.entries()) {
      const upload = named.find((c) => c.op.id === 'POST /api/v1/imports' && c.fileName?.expected === name);
      // The name goes out as UTF-8 bytes, as browsers and fetch send it.
      expect(upload?.request.body?.toString('utf8')).toContain(`filename="${name}"`);
      expect(upload?.request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      const created = named.find((c) => c.op.id === 'POST /api/v1/exports' && c.fileName?.expected === name);
      expect(JSON.parse(created!.request.body!.toString('utf8'))).toMatchObject({ file_name: name, file_type: 'csv' });
      const download = named.find(
        (c) => c.op.id === 'GET /api/v1/exports/{id}/download' && c.fileName?.expected === name,
      );
      expect(download?.request.path).toBe(`/api/v1/exports/${exportIds[i]}/download`);
      expect(download?.fileName?.in).toBe('content-disposition');
      const errors = named.find(
        (c) => c.op.id === 'GET /api/v1/imports/{id}/errors' && c.request.path.includes(importIds[i]),
      );
      expect(errors?.fileName).toEqual({ expected: errorFileName(name), in: 'content-disposition' });
    }
    expect(errorFileName('lista–名.csv')).toBe('lista–名-errors.csv');
    expect(SCRIPT_FILE_NAMES.join(' ')).toMatch(/[\u0600-\u06ff].*[\u0590-\u05ff]/u);
    expect(SCRIPT_FILE_NAMES.join(' ')).toMatch(/\p{Extended_Pictographic}/u);
    expect(SCRIPT_FILE_NAMES.join(' ')).toMatch(/\p{M}/u);
  });
});
