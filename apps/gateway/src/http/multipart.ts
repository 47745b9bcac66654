import type { Request } from 'express';
import busboy from 'busboy';
import type { Readable } from 'node:stream';
import { PayloadTooLargeError, ValidationError } from '@pim/errors';
import { keyProblem, refusalOf } from './json-guard';

/** A file part as it arrives: its name and a stream of its bytes (read it, or it is skipped). */
export interface UploadedFile {
  fileName: string;
  stream: Readable;
}

const tooLarge = (maxBytes: number) =>
  new PayloadTooLargeError(`The file is larger than the upload limit of ${maxBytes.toLocaleString('en-US')} bytes`, {
    solution: 'Split the file into smaller ones, or ask the operator to raise UPLOAD_MAX_BYTES',
  });

/**
 * Reads a multipart/form-data request as it arrives: text fields into `fields`, the one part named
 * `fileField` handed to `onFile` as a stream (never held whole in memory). Past `maxBytes` (by
 * Content-Length up front, or counted) it fails with 413; no file part, a second one, or a
 * malformed body fail with 400. Resolves once `onFile` and the body are both done.
 */
export function readUpload(
  req: Request,
  opts: { fileField: string; maxBytes: number; onFile: (file: UploadedFile) => Promise<void> },
): Promise<Record<string, string>> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  // Allow for the form's boundaries and fields around the file.
  if (Number.isFinite(declared) && declared > opts.maxBytes + 64 * 1024) {
    // Answered at once; the body is read and dropped so the caller gets the answer, not a reset.
    req.resume();
    return Promise.reject(tooLarge(opts.maxBytes));
  }
  return new Promise((resolve, reject) => {
    const fields: Record<string, string> = {};
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: req.headers,
        // File names arrive as the UTF-8 bytes browsers and HTTP clients send; read as busboy's
        // default, Latin-1, every name beyond ASCII (`lista–名.csv`) would be stored garbled.
        defParamCharset: 'utf8',
        limits: { fileSize: opts.maxBytes, files: 1, fields: 20, fieldSize: 1_024, parts: 25 },
      });
    } catch (err) {
      reject(new ValidationError(`The multipart body cannot be read: ${(err as Error).message}`));
      return;
    }
    let failed = false;
    let handling: Promise<void> | undefined;
    const fail = (err: unknown) => {
      if (failed) return;
      failed = true;
      req.unpipe(parser);
      // The rest of the body is read and dropped, so the caller gets the answer rather than a reset connection.
      req.resume();
      reject(err);
    };
    parser.on('field', (name, value) => {
      // Refused as a JSON body's key is (json-guard.ts): a field named `__proto__` would set the
      // prototype of `fields` here instead of being one, and so be dropped without a word.
      const kind = keyProblem(name);
      if (kind) return fail(refusalOf({ field: name, kind }));
      fields[name] = value;
    });
    const malformed = (err: Error) =>
      new ValidationError(`The multipart body cannot be read: ${err.message}`, { title: 'Malformed upload' });
    parser.on('file', (name, stream, info) => {
      // A body cut short fails the file stream too: unheard, that error would end the process.
      stream.on('error', (err: Error) => fail(malformed(err)));
      if (name !== opts.fileField || handling) {
        stream.resume();
        if (handling && name === opts.fileField)
          fail(
            new ValidationError('Send one file per upload', { details: [{ field: name, message: 'appears twice' }] }),
          );
        return;
      }
      stream.once('limit', () => fail(tooLarge(opts.maxBytes)));
      handling = opts.onFile({ fileName: info.filename ?? 'upload', stream }).catch((err: unknown) => {
        stream.resume();
        fail(err);
      });
    });
    parser.on('filesLimit', () =>
      fail(
        new ValidationError('Send one file per upload', { details: [{ field: opts.fileField, message: 'one file' }] }),
      ),
    );
    parser.on('error', (err: Error) => fail(malformed(err)));
    parser.on('close', () => {
      if (failed) return;
      if (!handling) {
        fail(
          new ValidationError(`The upload has no part named "${opts.fileField}"`, {
            title: 'Missing file',
            solution: `Send the file in a multipart/form-data part named "${opts.fileField}" (curl -F ${opts.fileField}=@products.xlsx)`,
            details: [{ field: opts.fileField, message: 'is required' }],
          }),
        );
        return;
      }
      handling.then(() => {
        if (!failed) resolve(fields);
      }, fail);
    });
    req.pipe(parser);
  });
}
