import { validateHeaderValue } from 'node:http';
import { parse } from 'content-disposition';
import { asciiFileName, attachmentHeader, fileDownload, type FileMessage } from './file-download';

async function* messages(...list: FileMessage[]): AsyncGenerator<FileMessage> {
  yield* list;
}

const NAMES = [
  'products.csv',
  'relatório–名前-🙂.csv',
  'lista–名-errors.csv',
  'تقرير.xlsx',
  'דוח.csv',
  'e\u0301te\u0301.csv',
  'a"b\\c;d,e.csv',
  'x\r\ny\u0000z.csv',
  '100% done.csv',
  '👨‍👩‍👧.csv',
];

describe('the name of a download', () => {
  it.each(NAMES)('is a header Node can send that reads back exactly: %j', (name) => {
    const header = attachmentHeader(name);
    expect(() => validateHeaderValue('content-disposition', header)).not.toThrow();
    expect(header).toMatch(/^attachment; filename=/);
    const { type, parameters } = parse(header);
    expect(type).toBe('attachment');
    // A client that reads filename* (RFC 6266: it wins over filename) gets the name exactly.
    expect(parameters.filename).toBe(name);
  });

  it('writes an ASCII filename and the UTF-8 name in filename* (RFC 6266) for a name beyond ASCII', () => {
    expect(attachmentHeader('relatório–名前-🙂.csv')).toBe(
      `attachment; filename=relatorio___-_.csv; filename*=UTF-8''relat%C3%B3rio%E2%80%93%E5%90%8D%E5%89%8D-%F0%9F%99%82.csv`,
    );
    expect(parse(attachmentHeader('relatório.csv'), { extended: false }).parameters.filename).toBe('relatorio.csv');
  });

  it('keeps an ASCII name as it is, quoted where it must be', () => {
    expect(attachmentHeader('products.csv')).toBe('attachment; filename=products.csv');
    expect(attachmentHeader('my products.csv')).toBe('attachment; filename="my products.csv"');
  });

  it('turns half of a surrogate pair into U+FFFD instead of failing', () => {
    expect(parse(attachmentHeader('a\ud83d.csv')).parameters.filename).toBe('a\ufffd.csv');
  });

  it('drops accents for the ASCII fallback and replaces what is left', () => {
    expect(asciiFileName('Ação çedilha.csv')).toBe('Acao cedilha.csv');
    expect(asciiFileName('名前\t.csv')).toBe('___.csv');
  });

  it('is what fileDownload answers with, the owner-given name or the route fallback', async () => {
    const named = await fileDownload(messages({ file_name: 'lista–名-errors.csv', data: new Uint8Array() }), 'errors');
    expect(parse(named.headers!['Content-Disposition']).parameters.filename).toBe('lista–名-errors.csv');
    const unnamed = await fileDownload(messages({ file_name: '', data: new Uint8Array() }), 'export');
    expect(unnamed.headers!['Content-Disposition']).toBe('attachment; filename=export');
  });
});
