import document from '../../../libs/api-client/openapi.json';
import { brokenText, checkResponse, fileNameProblems, type CheckContext } from './checks';
import type { FuzzResponse } from './http';
import { resolverOf, type Schema } from './schema';

const ctx: CheckContext = {
  errorSchema: { $ref: '#/components/schemas/Error' },
  resolve: resolverOf(document as unknown as { components: { schemas: Record<string, Schema> } }),
};
const error = {
  code: 404,
  kind: 'not_found',
  name: 'NotFoundError',
  title: 'Brand not found',
  message: "No brand with _id '6740a1b2c3d4e5f601234567'",
  solution: 'List brands',
  request_id: 'r-1',
};
const response = (status: number, body: unknown, headers: Record<string, string> = {}): FuzzResponse => ({
  status,
  headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': 'r-1', ...headers },
  body: Buffer.from(typeof body === 'string' ? body : JSON.stringify(body)),
  ms: 1,
});

describe('checkResponse', () => {
  it('passes answers below 400 and 4xx error objects', () => {
    expect(checkResponse(response(200, { any: 'thing' }), ctx)).toEqual([]);
    expect(checkResponse(response(304, ''), ctx)).toEqual([]);
    expect(checkResponse(response(404, error), ctx)).toEqual([]);
  });

  it('fails every 5xx, and a missing answer unless the request was cut short on purpose', () => {
    expect(checkResponse(response(503, { ...error, code: 503 }), ctx)).toEqual([
      { kind: 'server-error', detail: expect.stringMatching(/^503 /) },
    ]);
    const none: FuzzResponse = { status: 0, headers: {}, body: Buffer.alloc(0), error: 'socket hang up', ms: 1 };
    expect(checkResponse(none, ctx)).toEqual([{ kind: 'no-answer', detail: 'socket hang up' }]);
    expect(checkResponse(none, ctx, true)).toEqual([]);
  });

  it('fails a 4xx that is not the error object: HTML, another code, overlong text, another request id, broken text', () => {
    const kinds = (r: FuzzResponse) => checkResponse(r, ctx).map((p) => p.detail);
    expect(kinds(response(404, '<html>', { 'content-type': 'text/html' }))).toEqual([
      expect.stringContaining('text/html'),
    ]);
    expect(kinds(response(400, error))).toEqual([expect.stringContaining('code 404 is not the status 400')]);
    expect(kinds(response(404, { ...error, title: 't'.repeat(201) }))).toEqual([
      expect.stringContaining('longer than 200'),
    ]);
    expect(kinds(response(404, error, { 'x-request-id': 'r-2' }))).toEqual([
      expect.stringContaining('is not X-Request-Id'),
    ]);
    expect(kinds(response(404, { ...error, message: 'cut \ud83d' }))).toEqual([expect.stringContaining('surrogate')]);
    expect(kinds(response(431, '', { 'content-type': '' }))).toEqual([expect.stringContaining("Content-Type ''")]);
  });

  it('finds a lone surrogate anywhere in a parsed value', () => {
    expect(brokenText({ a: ['ok', { b: 'x\udc00' }] })).toBe('(root).a.1.b');
    expect(brokenText({ a: '😀' })).toBeUndefined();
  });
});

describe('fileNameProblems', () => {
  const name = 'relatório–名前-🙂.csv';
  const download = (disposition?: string, status = 200) =>
    response(status, 'a,b\n', disposition === undefined ? {} : { 'content-disposition': disposition });
  const inHeader = { expected: name, in: 'content-disposition' as const };

  it('passes a download whose filename* (or plain filename) is the name exactly', () => {
    const encoded = encodeURIComponent(name);
    expect(
      fileNameProblems(download(`attachment; filename="relatorio.csv"; filename*=UTF-8''${encoded}`), inHeader),
    ).toEqual([]);
    expect(
      fileNameProblems(download('attachment; filename=a.csv'), { expected: 'a.csv', in: 'content-disposition' }),
    ).toEqual([]);
  });

  it('fails a download with another name, or none', () => {
    const kinds = (r: FuzzResponse) => fileNameProblems(r, inHeader).map((p) => `${p.kind}: ${p.detail}`);
    expect(kinds(download('attachment; filename="relat?rio.csv"'))).toEqual([
      expect.stringMatching(/^wrong-file-name: expected/),
    ]);
    expect(kinds(download())).toEqual([expect.stringContaining('no Content-Disposition')]);
    expect(kinds(download('attachment'))).toEqual([expect.stringContaining('got undefined')]);
  });

  it("checks a record's file_name, and nothing on a refusal or without an expectation", () => {
    const made = (file_name: string) => response(201, { _id: 'x', file_name });
    expect(fileNameProblems(made(name), { expected: name, in: 'file_name' })).toEqual([]);
    expect(fileNameProblems(made('relatÃ³rio.csv'), { expected: name, in: 'file_name' })[0]?.kind).toBe(
      'wrong-file-name',
    );
    expect(fileNameProblems(download(undefined, 409), inHeader)).toEqual([]);
    expect(fileNameProblems(download(), undefined)).toEqual([]);
  });
});
