import { PassThrough, type Readable } from 'node:stream';
import { ValidationError } from '@pim/errors';
import { readUpload } from './multipart';

/** A request whose body is `body`, sent in one piece. */
function request(body: Buffer): Readable {
  const req = new PassThrough() as PassThrough & { headers: Record<string, string> };
  req.headers = { 'content-type': 'multipart/form-data; boundary=xyz', 'content-length': String(body.length) };
  req.end(body);
  return req;
}

const part = 'Content-Disposition: form-data; name="file"; filename="p.csv"\r\nContent-Type: text/csv\r\n\r\n';

describe('readUpload', () => {
  it('reads the file part of a well-formed body', async () => {
    const chunks: Buffer[] = [];
    const fields = await readUpload(request(Buffer.from(`--xyz\r\n${part}SKU\nA-1\r\n--xyz--\r\n`)) as never, {
      fileField: 'file',
      maxBytes: 1_000,
      onFile: async ({ stream }) => {
        for await (const c of stream) chunks.push(c as Buffer);
      },
    });
    expect(fields).toEqual({});
    expect(Buffer.concat(chunks).toString()).toBe('SKU\nA-1');
  });

  it('answers a body cut short inside the file with a 400, whatever the file reader does', async () => {
    // The reader has not attached to the stream yet when the body ends: the stream's error must not go unheard.
    const cut = Buffer.from(`--xyz\r\n${part}SKU\nA-1\nA-2`);
    const upload = readUpload(request(cut) as never, {
      fileField: 'file',
      maxBytes: 1_000,
      onFile: () => new Promise<void>((resolve) => setTimeout(resolve, 50)),
    });
    await expect(upload).rejects.toBeInstanceOf(ValidationError);
    await expect(upload).rejects.toMatchObject({ title: 'Malformed upload' });
  });

  it.each([
    ['as the raw UTF-8 bytes browsers and fetch send', 'filename="lista–名.csv"'],
    ['as an RFC 5987 extended parameter', "filename*=UTF-8''lista%E2%80%93%E5%90%8D.csv"],
  ])('reads a file name beyond Latin-1 exactly, %s', async (_how, param) => {
    const head = `Content-Disposition: form-data; name="file"; ${param}\r\nContent-Type: text/csv\r\n\r\n`;
    let name = '';
    await readUpload(request(Buffer.from(`--xyz\r\n${head}SKU\r\n--xyz--\r\n`, 'utf8')) as never, {
      fileField: 'file',
      maxBytes: 1_000,
      onFile: async ({ fileName, stream }) => {
        name = fileName;
        stream.resume();
      },
    });
    expect(name).toBe('lista–名.csv');
  });
});
