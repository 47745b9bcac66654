import { cleanFileName } from './import.upload';

describe('the file name an upload is kept under', () => {
  it('keeps a name in any script exactly', () => {
    for (const name of ['lista–名.csv', 'relatório 🙂.xlsx', 'تقرير.csv', 'e\u0301te\u0301.csv'])
      expect(cleanFileName(name)).toBe(name);
  });

  it('keeps the last path segment, without control characters', () => {
    expect(cleanFileName('C:\\Users\\ana\\lista–名.csv')).toBe('lista–名.csv');
    expect(cleanFileName('a\u0000b\r\n.csv')).toBe('ab.csv');
    expect(cleanFileName('')).toBe('upload');
  });

  it('cuts a long name at 255 UTF-16 units, never between the halves of a character', () => {
    const name = `${'a'.repeat(254)}🙂.csv`;
    expect(cleanFileName(name)).toBe('a'.repeat(254));
    expect(cleanFileName(`${'a'.repeat(253)}🙂.csv`)).toBe(`${'a'.repeat(253)}🙂`);
    expect(() => encodeURIComponent(cleanFileName(name))).not.toThrow();
  });
});
