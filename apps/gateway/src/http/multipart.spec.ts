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
});
