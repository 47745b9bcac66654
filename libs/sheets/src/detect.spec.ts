import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationError } from '@pim/errors';
import { SNIFF_BYTES, detectFormat } from './detect';
import { ods, row, table, text, zip } from './testing/ods.fixtures';

const head = (bytes: Buffer) => bytes.subarray(0, SNIFF_BYTES);
const fixture = (name: string) => head(readFileSync(join(__dirname, '..', 'fixtures', name)));

/** The refusal `detectFormat` throws for a file. */
function refusal(bytes: Buffer, fileName?: string): ValidationError {
  try {
    detectFormat(head(bytes), fileName);
  } catch (err) {
    if (err instanceof ValidationError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe('detectFormat', () => {
  it('reads an ODS (its stored mimetype comes first), an XLSX and a CSV, from the files LibreOffice writes', () => {
    expect(detectFormat(fixture('products.ods'), 'products.ods')).toBe('ods');
    expect(detectFormat(fixture('products.xlsx'), 'products.xlsx')).toBe('xlsx');
    expect(detectFormat(fixture('products.csv'), 'products.csv')).toBe('csv');
    expect(detectFormat(head(ods(table('S', row(text('x'))))))).toBe('ods');
    // Named by its content, not its name.
    expect(detectFormat(fixture('products.ods'), 'products.xlsx')).toBe('ods');
  });

  it('refuses a flat OpenDocument spreadsheet, naming it and what to save it as', () => {
    const err = refusal(fixture('products.fods'), 'x.fods');
    expect(err.message).toBe("'x.fods' is a flat OpenDocument spreadsheet (.fods), which is not read");
    expect(err).toMatchObject({
      title: 'Spreadsheet format not read',
      solution: expect.stringMatching(/^Save it as \.xlsx, \.ods or \.csv/),
    });
    // Saved as UTF-16, it is still told.
    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(readFileSync(join(__dirname, '..', 'fixtures', 'products.fods'), 'utf8'), 'utf16le'),
    ]);
    expect(refusal(utf16).message).toMatch(/flat OpenDocument spreadsheet/);
  });

  it('refuses other OpenDocument files, Office documents and XML by what they are', () => {
    const odt = zip([
      ['mimetype', 'application/vnd.oasis.opendocument.text'],
      ['content.xml', '<x/>'],
    ]);
    expect(refusal(odt, 'a.odt').message).toBe("'a.odt' is an OpenDocument text document (.odt), not a spreadsheet");
    const docx = zip([
      [
        '[Content_Types].xml',
        '<?xml version="1.0"?><Types><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
      ],
      ['word/document.xml', '<w/>'],
    ]);
    expect(refusal(docx, 'a.xlsx').message).toBe("'a.xlsx' is a Word document (.docx), not a spreadsheet");
    const xlsb = zip([
      [
        '[Content_Types].xml',
        '<Types><Override ContentType="application/vnd.ms-excel.sheet.binary.macroEnabled.main"/></Types>',
      ],
    ]);
    expect(refusal(xlsb).message).toMatch(/Excel binary workbook \(\.xlsb\), which is not read/);
    const excel2003 = Buffer.from(
      '<?xml version="1.0"?>\n<?mso-application progid="Excel.Sheet"?>\n<Workbook xmlns="urn:schemas-microsoft-com:office:spreadsheet">',
    );
    expect(refusal(excel2003).message).toMatch(/Excel 2003 XML spreadsheet/);
    expect(refusal(Buffer.from('<?xml version="1.0"?><catalog><item/></catalog>')).message).toMatch(
      /an XML document, not a spreadsheet/,
    );
    expect(
      refusal(Buffer.from('\ufeff<!DOCTYPE html>\n<html><table><tr><td>code</td></tr></table></html>'), 'p.xls')
        .message,
    ).toMatch(/'p\.xls' is an HTML page/);
  });

  it('keeps the refusals of binary files and reads text as CSV', () => {
    expect(detectFormat(Buffer.from('code;name\n<b>A</b>;B\n'))).toBe('csv');
    expect(refusal(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0]), 'old.xls')).toMatchObject({
      message: "'old.xls' is an Excel 97-2003 workbook (.xls), which is not read",
      solution: expect.stringMatching(/save it as \.xlsx/),
    });
    const encrypted = Buffer.concat([
      Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]),
      Buffer.alloc(500),
      Buffer.from('EncryptedPackage', 'utf16le'),
    ]);
    expect(refusal(encrypted).message).toMatch(/a password-protected workbook, which is not read/);
    expect(refusal(Buffer.from('%PDF-1.7 ...'), 'x.pdf').message).toBe("'x.pdf' is a PDF document, not a spreadsheet");
    expect(refusal(Buffer.from([1, 2, 3, 0, 5])).message).toMatch(/binary data/);
  });
});
