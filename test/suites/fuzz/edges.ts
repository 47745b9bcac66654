import { pathSegments, type CaseContext, type FuzzCase } from './cases';
import { IMPORT_CSV, NAMED_EXPORTS, NAMED_IMPORTS, SCRIPT_FILE_NAMES, multipartBody } from './fixtures';
import { requestIdOf } from './http';
import { pathOf, paramsIn, type Draft } from './kinds';
import { parameterKey, type Operation } from './operations';
import { Prng } from './prng';

// Edge cases: requests every run sends, whatever its seed, before the generated ones. They are the
// limits random sampling seldom lands on: list offsets around 2^31 (the int32 the window crosses
// gRPC as) and 2^53 (past it a double is no longer a whole count), and file names in every script
// on their way in (an upload, an export's file_name) and out (a download's Content-Disposition).
// They are numbered -1, -2, … so that `FUZZ_CASE=-3` replays one like any generated case.

/** `skip` values around 2^31 and 2^53. */
export const DEEP_SKIPS = ['2147483647', '2147483648', '4294967296', '9007199254740991', '9007199254740992'];

/** `page` and `limit` pairs whose window, (page - 1) × limit, lands at, past or far past those limits. */
export const DEEP_PAGES: [page: string, limit: string][] = [
  ['85899346', '25'],
  ['85899347', '25'],
  ['2147483648', '1'],
  ['2147483649', '1'],
  ['4294967297', '1'],
  ['90071992547410', '100'],
  ['9007199254740992', '25'],
  ['99999999999', '25'],
];

/** The name of an import's error file: the uploaded name without its extension, then `-errors.csv`. */
export const errorFileName = (uploaded: string) => `${uploaded.replace(/\.[^.]*$/, '')}-errors.csv`;

/** The window the list parser allows: (page - 1) × limit, or skip, at most 2^31 - 1. */
const pastMaximum = (skip: number) => skip > 2_147_483_647;

const cache = new WeakMap<CaseContext, FuzzCase[]>();

/** Every edge case of a run, in order: the case at index -k is the k-th. */
export function edgeCases(ctx: CaseContext): FuzzCase[] {
  const cached = cache.get(ctx);
  if (cached) return cached;
  const cases: FuzzCase[] = [];
  const add = (
    op: Operation,
    kind: string,
    note: string,
    build: (c: { segments: string[]; headers: Record<string, string> }) => {
      query?: [string, string][];
      body?: Buffer;
      mutated?: boolean;
      fileName?: FuzzCase['fileName'];
    },
  ) => {
    const index = -(cases.length + 1);
    const rng = Prng.of(ctx.seed, 'edge', index);
    const segments = pathSegments(op, ctx.fixtures, rng);
    const headers = { authorization: `Bearer ${ctx.apiKey}`, 'x-request-id': requestIdOf(ctx.seed, index) };
    const made = build({ segments, headers });
    const query = made.query ?? [];
    const parameters = [
      ...paramsIn(op, 'path').map((p) => parameterKey(op, p)),
      ...paramsIn(op, 'query')
        .filter((p) => query.some(([k]) => k === p.name))
        .map((p) => parameterKey(op, p)),
    ];
    cases.push({
      index,
      op,
      kind,
      note,
      request: { method: op.method, path: pathOf({ segments, query } as Draft), headers, body: made.body },
      parameters,
      mutated: made.mutated ?? false,
      mayGoUnanswered: false,
      ...(made.fileName ? { fileName: made.fileName } : {}),
    });
  };

  const lists = ctx.ops.filter((op) => {
    const names = paramsIn(op, 'query').map((p) => p.name);
    return op.method === 'GET' && names.includes('page') && names.includes('skip');
  });
  for (const op of lists) {
    for (const skip of DEEP_SKIPS)
      add(op, 'edge:deep-offset', `skip=${skip}`, () => ({
        query: [['skip', skip]],
        mutated: pastMaximum(Number(skip)),
      }));
    for (const [page, limit] of DEEP_PAGES)
      add(op, 'edge:deep-offset', `page=${page} with limit=${limit}`, () => ({
        query: [
          ['page', page],
          ['limit', limit],
        ],
        mutated: pastMaximum((Number(page) - 1) * Number(limit)),
      }));
  }

  const find = (id: string) => ctx.ops.find((op) => op.id === id);
  const upload = find('POST /api/v1/imports');
  const createExport = find('POST /api/v1/exports');
  const download = find('GET /api/v1/exports/{id}/download');
  const errors = find('GET /api/v1/imports/{id}/errors');
  const named = (collection: string, i: number) => ctx.fixtures.list(collection)[i];
  SCRIPT_FILE_NAMES.forEach((name, i) => {
    const quoted = JSON.stringify(name);
    if (upload)
      add(upload, 'edge:file-name', `an upload named ${quoted}`, ({ headers }) => {
        const boundary = `----fuzzedge${i}`;
        headers['content-type'] = `multipart/form-data; boundary=${boundary}`;
        return {
          body: multipartBody(boundary, { name, content: IMPORT_CSV }),
          fileName: { expected: name, in: 'file_name' },
        };
      });
    if (createExport)
      add(createExport, 'edge:file-name', `an export named ${quoted}`, ({ headers }) => {
        headers['content-type'] = 'application/json';
        return {
          body: Buffer.from(JSON.stringify({ file_type: 'csv', file_name: name, filters: { enabled: true } })),
          fileName: { expected: name, in: 'file_name' },
        };
      });
    // The fixtures made a completed export and an import of each name: their files, downloaded.
    if (download && named(NAMED_EXPORTS, i))
      add(download, 'edge:file-name', `the download of the export named ${quoted}`, ({ segments }) => {
        segments[3] = named(NAMED_EXPORTS, i);
        return { fileName: { expected: name, in: 'content-disposition' } };
      });
    if (errors && named(NAMED_IMPORTS, i))
      add(errors, 'edge:file-name', `the error file of the import named ${quoted}`, ({ segments }) => {
        segments[3] = named(NAMED_IMPORTS, i);
        return { fileName: { expected: errorFileName(name), in: 'content-disposition' } };
      });
  });
  cache.set(ctx, cases);
  return cases;
}

/** The edge case at a negative index. */
export function edgeCase(ctx: CaseContext, index: number): FuzzCase {
  const c = edgeCases(ctx)[-index - 1];
  if (!c) throw new Error(`there is no edge case ${index} (they are -1 to -${edgeCases(ctx).length})`);
  return c;
}
