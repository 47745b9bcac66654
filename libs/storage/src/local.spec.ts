import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { NotFoundError, PayloadTooLargeError, ValidationError } from '@pim/errors';
import { LocalFileStorage } from './local';

/** Every file under a directory, relative, sorted. */
const filesIn = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((d) => d.isFile())
    .map((d) => join(d.parentPath, d.name).slice(dir.length + 1))
    .sort();

/** A stream of `count` chunks of `size` bytes. */
function chunks(count: number, size: number): Readable {
  let sent = 0;
  return new Readable({
    read() {
      this.push(sent++ < count ? Buffer.alloc(size, 97) : null);
    },
  });
}

// The local directory storage against a real temporary directory.
describe('LocalFileStorage', () => {
  let dir: string;
  let storage: LocalFileStorage;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pim-storage-'));
    storage = new LocalFileStorage(dir);
  });

  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('streams a file in and out by key, replaces it whole, and removes it', async () => {
    expect(
      await storage.put('imports/2026/a.csv', Readable.from(['code;name\n', 'A;Cup\n']), { maxBytes: 100 }),
    ).toEqual({
      key: 'imports/2026/a.csv',
      bytes: 16,
    });
    expect(await text(await storage.get('imports/2026/a.csv'))).toBe('code;name\nA;Cup\n');
    await storage.put('imports/2026/a.csv', Readable.from(['v2']), { maxBytes: 100 });
    expect(await storage.stat('imports/2026/a.csv')).toEqual({ key: 'imports/2026/a.csv', bytes: 2 });
    expect(filesIn(dir)).toEqual(['imports/2026/a.csv']);
    await storage.remove('imports/2026/a.csv');
    await storage.remove('imports/2026/a.csv');
    expect(await storage.stat('imports/2026/a.csv')).toBeUndefined();
    await expect(storage.get('imports/2026/a.csv')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses a file past its limit with a 413 and keeps nothing of it, nor of a failed source', async () => {
    await storage.put('x.bin', chunks(2, 10), { maxBytes: 100 });
    const big = storage.put('x.bin', chunks(1_000, 1_024), { maxBytes: 64 * 1_024 });
    await expect(big).rejects.toBeInstanceOf(PayloadTooLargeError);
    await expect(big).rejects.toThrow('larger than 65536 bytes');
    const broken = new Readable({
      read() {
        this.destroy(new Error('connection reset'));
      },
    });
    await expect(storage.put('y.bin', broken, { maxBytes: 100 })).rejects.toThrow('connection reset');
    // The earlier x.bin is untouched; no partial file of either write is left.
    expect(filesIn(dir)).toEqual(['x.bin']);
    expect((await storage.stat('x.bin'))?.bytes).toBe(20);
  });

  it('refuses keys that could leave the directory or are not plain names', async () => {
    for (const key of ['../etc/passwd', '/abs', 'a//b', '.hidden', 'a/../b', 'sp ace', '', 'x'.repeat(501)]) {
      await expect(storage.put(key, Readable.from(['x']), { maxBytes: 10 })).rejects.toBeInstanceOf(ValidationError);
      await expect(storage.stat(key)).rejects.toBeInstanceOf(ValidationError);
    }
    expect(filesIn(dir)).toEqual([]);
  });

  it('keeps one whole file when writes of one key race', async () => {
    await Promise.all(
      ['a', 'b', 'c', 'd'].map((c) => storage.put('race.txt', Readable.from([c.repeat(5_000)]), { maxBytes: 10_000 })),
    );
    const body = await text(await storage.get('race.txt'));
    expect(body).toMatch(/^(a{5000}|b{5000}|c{5000}|d{5000})$/);
    expect(filesIn(dir)).toEqual(['race.txt']);
  });
});
