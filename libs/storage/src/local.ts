import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import { NotFoundError, PayloadTooLargeError } from '@pim/errors';
import { checkKey, type FileStorage, type StoredFile } from './storage';

const isMissing = (err: unknown) => (err as NodeJS.ErrnoException)?.code === 'ENOENT';

/** Thrown inside the pipeline when a file passes its limit. */
class TooLarge extends Error {}

/** Counts bytes on their way through and stops the stream past `max`. */
function limited(max: number, counted: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      counted.bytes += chunk.length;
      if (counted.bytes > max) done(new TooLarge());
      else done(null, chunk);
    },
  });
}

/**
 * Files in a local directory (the default storage, under the platform's data directory). A file
 * is written to a temporary name beside its final one and renamed when complete, so readers never
 * see half a file and a failed or oversized write leaves nothing behind.
 */
export class LocalFileStorage implements FileStorage {
  constructor(private readonly root: string) {}

  private pathOf(key: string): string {
    return join(this.root, checkKey(key));
  }

  async put(key: string, source: Readable, opts: { maxBytes: number }): Promise<StoredFile> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true });
    const partial = `${path}.${randomBytes(6).toString('hex')}.part`;
    const counted = { bytes: 0 };
    try {
      await pipeline(source, limited(opts.maxBytes, counted), createWriteStream(partial, { flags: 'wx' }));
      await rename(partial, path);
      return { key, bytes: counted.bytes };
    } catch (err) {
      await unlink(partial).catch(() => undefined);
      if (err instanceof TooLarge) {
        source.destroy();
        throw new PayloadTooLargeError(`The file is larger than ${opts.maxBytes} bytes`, {
          title: 'File too large',
          solution: `Send a file of at most ${opts.maxBytes} bytes`,
        });
      }
      throw err;
    }
  }

  async get(key: string): Promise<Readable> {
    const path = this.pathOf(key);
    if (!(await this.stat(key))) throw new NotFoundError(`No file '${key}'`, { title: 'File not found' });
    return createReadStream(path);
  }

  async stat(key: string): Promise<StoredFile | undefined> {
    try {
      const s = await stat(this.pathOf(key));
      return s.isFile() ? { key, bytes: s.size } : undefined;
    } catch (err) {
      if (isMissing(err)) return undefined;
      throw err;
    }
  }

  async remove(key: string): Promise<void> {
    await unlink(this.pathOf(key)).catch((err: unknown) => {
      if (!isMissing(err)) throw err;
    });
  }
}
