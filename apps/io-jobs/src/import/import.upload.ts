import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { ioJobs as pb } from '@pim/contracts';
import { ValidationError } from '@pim/errors';
import { newId } from '@pim/ids';
import type { RecordService } from '@pim/records';
import type { ImportInput, ImportView } from '@pim/resources';
import { SNIFF_BYTES, detectFormat, type SheetReadFormat } from '@pim/sheets';
import type { FileStorage } from '@pim/storage';
import type { ImportEntity } from '../entities/import.entity';
import { inspect, sheetFields, sheetOf } from './import.sheet';

/** A file name as kept: its last path segment, without control characters, at most 255 characters. */
export function cleanFileName(name: string): string {
  const base = (name ?? '').split(/[\\/]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = base.replace(/[\u0000-\u001f\u007f]/g, '').trim();
  // Cut between two characters, never between the halves of one (an emoji): half of one has no
  // UTF-8 form, and the name would not survive the trip to a download's header.
  const cut = clean.slice(0, 255);
  return (/[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut) || 'upload';
}

/** A storage key segment from a file name: letters, digits, dots, dashes and underscores. */
const keySegment = (name: string, format: SheetReadFormat) =>
  `${
    name
      .replace(/\.[^.]*$/, '')
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 100) || 'upload'
  }.${format}`;

const startFirst = () =>
  new ValidationError('An upload starts with the file', {
    title: 'Invalid upload',
    solution: 'Send the file in a multipart/form-data part named "file"',
    details: [{ field: 'file', message: 'is required' }],
  });

/**
 * Uploads: the file streamed into storage as it arrives (never whole in memory; refused with 413
 * past the limit, keeping nothing), its format told from its first bytes (anything but XLSX, ODS or
 * CSV is a 400 before the rest is stored), every worksheet read once for its header row and rows —
 * the one that looks like the product table is the import's —, and the import created `uploaded`
 * — or `mapped`, when a template named in the form gives its mapping.
 */
export class ImportUploads {
  constructor(
    private readonly imports: RecordService<ImportEntity, ImportView, ImportInput>,
    private readonly storage: FileStorage,
    private readonly maxBytes: number,
  ) {}

  /** Takes an upload's messages: `start`, then `chunk`s, then (or anywhere) `fields`. */
  async upload(messages: AsyncIterable<pb.UploadImportRequest>): Promise<ImportView> {
    const it = messages[Symbol.asyncIterator]();
    const first = await it.next();
    const start = first.done ? undefined : first.value.part;
    if (start?.$case !== 'start') throw startFirst();
    const fileName = cleanFileName(start.value.file_name);
    const id = newId();
    let fields: pb.UploadFields = {};
    let head = Buffer.alloc(0);
    let format: SheetReadFormat | undefined;
    let key: string | undefined;
    const body = new PassThrough();
    let stored: Promise<unknown> | undefined;
    const begin = (f: SheetReadFormat) => {
      format = f;
      key = `imports/${id}/${keySegment(fileName, f)}`;
      stored = this.storage.put(key, body, { maxBytes: this.maxBytes });
      stored.catch(() => undefined); // awaited below
      body.write(head);
    };
    try {
      for (let next = await it.next(); !next.done; next = await it.next()) {
        const part = next.value.part;
        if (part?.$case === 'fields') fields = part.value;
        if (part?.$case !== 'chunk' || part.value.length === 0) continue;
        const chunk = part.value;
        if (format === undefined) {
          head = Buffer.concat([head, chunk]);
          if (head.length >= SNIFF_BYTES) begin(detectFormat(head, fileName));
          continue;
        }
        // Wait while storage is behind, but stop at once if it gave up (the file is too large).
        if (!body.write(chunk)) await Promise.race([once(body, 'drain'), stored]);
      }
      if (format === undefined) {
        if (head.length === 0)
          throw new ValidationError('The uploaded file is empty', {
            title: 'Empty file',
            solution: 'Upload an .xlsx or .ods workbook or a .csv file with a header row and products',
            details: [{ field: 'file', message: 'has no bytes' }],
          });
        begin(detectFormat(head, fileName));
      }
      body.end();
      await stored;
    } catch (err) {
      body.destroy();
      await stored?.catch(() => undefined);
      if (key) await this.storage.remove(key);
      throw err;
    }
    const file = { file_key: key!, file_type: format!, file_name: fileName };
    try {
      const summary = await inspect(sheetOf(this.storage, file), {});
      const size = (await this.storage.stat(key!))?.bytes ?? 0;
      const input = Object.fromEntries(
        Object.entries({
          catalog_id: fields.catalog_id,
          category_id: fields.category_id,
          from_template_id: fields.from_template_id,
          time_zone: fields.time_zone,
        }).filter(([, v]) => v !== undefined && v !== ''),
      );
      const { view } = await this.imports.createRecord(input, {
        id,
        fill: (record) =>
          Object.assign(record, file, sheetFields(summary, record.strip_formula_quote), {
            file_size: size,
            status: 'uploaded',
            proccess_count: 0,
            commit_count: 0,
            errors_count: 0,
            logs: [],
          }),
      });
      return view;
    } catch (err) {
      await this.storage.remove(key!);
      throw err;
    }
  }
}
