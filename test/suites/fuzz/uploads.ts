import { IMPORT_CSV, multipartBody } from './fixtures';
import type { Prng } from './prng';

/** A multipart/form-data request body and its Content-Type. */
export interface UploadBody {
  contentType: string;
  body: Buffer;
  note: string;
}

/** The form fields an upload may carry besides its file (ids that exist, or not). */
export type UploadFields = Record<string, string>;

const boundaryOf = (rng: Prng) => `----fuzz${rng.string('abcdef0123456789', 16)}`;
const type = (boundary: string) => `multipart/form-data; boundary=${boundary}`;

/** A well-formed upload of a small CSV file. */
export function validUpload(rng: Prng, fields: UploadFields): UploadBody {
  const boundary = boundaryOf(rng);
  return {
    contentType: type(boundary),
    body: multipartBody(boundary, { name: `fuzz-${rng.int(0, 999)}.csv`, content: IMPORT_CSV }, fields),
    note: 'a CSV file',
  };
}

/** Broken uploads, by kind: cut short, without a file, with two, with a wrong boundary, and more. */
export const UPLOAD_MUTATIONS: Record<string, (rng: Prng, fields: UploadFields) => UploadBody> = {
  'multipart-truncated': (rng, fields) => {
    const whole = validUpload(rng, fields);
    const cut = rng.int(1, whole.body.length - 1);
    return { ...whole, body: whole.body.subarray(0, cut), note: `cut after ${cut} of ${whole.body.length} bytes` };
  },
  'multipart-no-file': (rng) => {
    const boundary = boundaryOf(rng);
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="catalog_id"\r\n\r\nx\r\n--${boundary}--\r\n`;
    return { contentType: type(boundary), body: Buffer.from(body), note: 'no file part' };
  },
  'multipart-two-files': (rng) => {
    const boundary = boundaryOf(rng);
    const one = multipartBody(boundary, { name: 'a.csv', content: IMPORT_CSV }).toString();
    const part = one.slice(0, one.lastIndexOf(`--${boundary}--`));
    return { contentType: type(boundary), body: Buffer.from(part + part + `--${boundary}--\r\n`), note: 'two files' };
  },
  'multipart-bad-boundary': (rng, fields) => {
    const whole = validUpload(rng, fields);
    return { ...whole, contentType: type('not-the-boundary'), note: 'a boundary the body does not use' };
  },
  'multipart-no-boundary': (rng, fields) => ({
    ...validUpload(rng, fields),
    contentType: rng.pick(['multipart/form-data', 'multipart/form-data; boundary=', 'multipart/mixed; boundary=x']),
    note: 'no usable boundary',
  }),
  'multipart-huge-field': (rng) => {
    const boundary = boundaryOf(rng);
    return {
      contentType: type(boundary),
      body: multipartBody(boundary, { name: 'a.csv', content: IMPORT_CSV }, { catalog_id: 'x'.repeat(5_000) }),
      note: 'a field of 5,000 characters',
    };
  },
  'multipart-many-parts': (rng) => {
    const boundary = boundaryOf(rng);
    const fields = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`f${i}`, 'v']));
    return {
      contentType: type(boundary),
      body: multipartBody(boundary, { name: 'a.csv', content: IMPORT_CSV }, fields),
      note: '60 parts',
    };
  },
  'multipart-bad-filename': (rng, fields) => {
    const boundary = boundaryOf(rng);
    const name = rng.pick([
      '../../etc/passwd',
      'a\u0000b.csv',
      `${'n'.repeat(3_000)}.csv`,
      'é漢.csv',
      '',
      '.xlsx',
      'a"b.csv',
    ]);
    return {
      contentType: type(boundary),
      body: multipartBody(boundary, { name, content: IMPORT_CSV }, fields),
      note: `file name ${JSON.stringify(name.slice(0, 40))}`,
    };
  },
  'multipart-bad-file': (rng, fields) => {
    const boundary = boundaryOf(rng);
    const [name, content, note] = rng.pick([
      ['a.xlsx', Buffer.from('PK\u0003\u0004garbage'), 'a broken XLSX'],
      ['a.csv', Buffer.alloc(0), 'an empty file'],
      ['a.csv', Buffer.from([0xff, 0xfe, 0x00, 0xd8, 0x00]), 'bytes that are no text'],
      ['a.csv', Buffer.from('\n\n\n'), 'blank lines only'],
      ['a.csv', Buffer.from(`${'h;'.repeat(5_000)}\n1;2\n`), '5,000 columns'],
      ['a.pdf', Buffer.from('%PDF-1.4'), 'a PDF'],
      ['a.csv', Buffer.from('code;name\n"unclosed;x\n'), 'an unclosed quote'],
    ] as const);
    return { contentType: type(boundary), body: multipartBody(boundary, { name, content }, fields), note };
  },
  'multipart-bad-ids': (rng) => {
    const boundary = boundaryOf(rng);
    const [key, value] = rng.pick([
      ['catalog_id', 'abc'],
      ['category_id', '6740a1b2c3d4e5f601234567'],
      ['from_template_id', '%00'],
      ['catalog_id', ''],
      ['unknown_field', 'x'],
    ]);
    return {
      contentType: type(boundary),
      body: multipartBody(boundary, { name: 'a.csv', content: IMPORT_CSV }, { [key]: value }),
      note: `${key}=${JSON.stringify(value)}`,
    };
  },
};
