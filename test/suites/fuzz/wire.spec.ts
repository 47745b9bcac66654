import { Prng } from './prng';
import { UPLOAD_MUTATIONS, validUpload } from './uploads';
import { WIRE_VARIANTS } from './wire';

const base = {
  method: 'POST',
  path: '/api/v1/brands',
  host: '127.0.0.1:8080',
  authorization: 'Bearer k',
  requestId: 'fz-s-1',
  body: Buffer.from('{"code":"a"}'),
};

describe('hand-written requests and uploads', () => {
  it('writes each wire variant as a request line, headers and the body, half-closing only when the body is cut', () => {
    for (const [name, variant] of Object.entries(WIRE_VARIANTS)) {
      const w = variant(base, Prng.of('wire', name));
      const text = w.bytes.toString('latin1');
      expect({ name, method: text.indexOf(' ') > 0 }).toEqual({ name, method: true });
      expect(w.note.length).toBeGreaterThan(3);
      if (w.halfClose) expect(['truncated-body', 'bad-chunked']).toContain(name);
      expect({ name, id: text.includes('\r\nX-Request-Id: fz-s-1\r\n') }).toEqual({ name, id: true });
    }
    const long = WIRE_VARIANTS['overlong-header'](base, Prng.of('x')).bytes.toString('latin1');
    expect(long.length).toBeGreaterThan(16 * 1024);
    expect(long.endsWith('{"code":"a"}')).toBe(true);
    expect(WIRE_VARIANTS['missing-host'](base, Prng.of('x')).bytes.toString()).not.toMatch(/\r\nHost:/);
  });

  it('uploads a CSV as multipart, and breaks it in each named way', () => {
    const ok = validUpload(Prng.of('u'), { catalog_id: 'c' });
    const boundary = ok.contentType.split('boundary=')[1];
    expect(ok.body.toString()).toContain(`--${boundary}--\r\n`);
    expect(ok.body.toString()).toContain('name="catalog_id"\r\n\r\nc\r\n');
    for (const [name, mutate] of Object.entries(UPLOAD_MUTATIONS)) {
      const u = mutate(Prng.of('u', name), {});
      expect(u.contentType).toMatch(/^multipart\//);
      expect(u.note.length).toBeGreaterThan(3);
    }
    const cut = UPLOAD_MUTATIONS['multipart-truncated'](Prng.of('t'), {});
    expect(cut.body.toString()).not.toMatch(/--\r\n$/);
  });
});
