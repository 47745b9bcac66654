import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { readRows, type Cell, type SheetFormat } from '@pim/sheets';
import type { ChaosApi, Json } from './api';
import type { Ledger } from './ledger';
import type { OutboxRow } from './truth';

/** Rows of a file, header first. */
async function rowsOf(format: SheetFormat, bytes: Buffer): Promise<Cell[][]> {
  const out: Cell[][] = [];
  for await (const r of readRows({ format, open: async () => Readable.from([bytes]) }, undefined)) out.push(r.cells);
  return out;
}

/** Every file under a folder, relative to it. */
function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => relative(dir, join(e.parentPath, e.name)));
  } catch {
    return [];
  }
}

const count = (events: readonly OutboxRow[], type: string, id: string) =>
  events.filter((e) => e.type === type && e.recordId === id).length;

/** What the job checks saw. */
export interface JobCounts {
  imports: number;
  exports: number;
  /** Partial files a killed write left in file storage. */
  partialFiles: number;
}

/**
 * Every started import and export finished exactly once: a final state with counts equal to its
 * input, its products written once (version 1) or its file holding each product once, one result
 * file, one completion event.
 */
export async function checkJobs(
  api: ChaosApi,
  ledger: Ledger,
  events: readonly OutboxRow[],
  filesDir: string,
  failures: string[],
): Promise<JobCounts> {
  for (const im of ledger.imports) {
    const what = `import ${im.id}`;
    const got = (await api.read(`/imports/${im.id}`)).json;
    const good = im.rows - im.refused;
    const want = {
      status: 'completed_with_errors',
      rows_count: im.rows,
      proccess_count: im.rows,
      commit_count: good,
      errors_count: im.refused,
    };
    const seen = Object.fromEntries(Object.keys(want).map((k) => [k, got[k]]));
    if (JSON.stringify(seen) !== JSON.stringify(want))
      failures.push(`${what}: ${JSON.stringify(seen)}, expected ${JSON.stringify(want)}`);
    const page = await api.read(`/products?code_in=${im.codes.join(',')}&limit=100`);
    const products = (page.json.data as Json[] | undefined) ?? [];
    const twice = products.filter((p) => p.version !== 1).map((p) => `${p.code} v${p.version}`);
    if (products.length !== good || page.json.total !== good)
      failures.push(`${what}: ${page.json.total} of its ${good} products exist`);
    if (twice.length > 0) failures.push(`${what}: products written more than once: ${twice.join(', ')}`);
    const errors = await api.bytes(`/imports/${im.id}/errors`);
    const refused = errors.status === 200 ? (await rowsOf('csv', errors.bytes)).length - 1 : -1;
    if (refused !== im.refused) failures.push(`${what}: its error file holds ${refused} rows, not ${im.refused}`);
    const completions = count(events, 'imports.completed', im.id);
    if (completions !== 1) failures.push(`${what}: ${completions} imports.completed events`);
  }

  const files = filesUnder(filesDir);
  for (const ex of ledger.exports) {
    const what = `export ${ex.id}`;
    const got = (await api.read(`/exports/${ex.id}`)).json;
    const total = (got.metadata as Json | undefined)?.total_products;
    if (got.status !== 'completed' || total !== ex.codes.length || got.rows_count !== ex.codes.length)
      failures.push(
        `${what}: ${got.status}, ${total} products and ${got.rows_count} rows, expected ${ex.codes.length}`,
      );
    const file = await api.bytes(`/exports/${ex.id}/download`);
    if (file.status !== 200) failures.push(`${what}: download answered ${file.status}`);
    else {
      const rows = await rowsOf(got.file_type as SheetFormat, file.bytes);
      const at = rows[0].indexOf('code');
      const codes = rows.slice(1).map((r) => String(r[at]));
      if (JSON.stringify([...codes].sort()) !== JSON.stringify([...ex.codes].sort()))
        failures.push(
          `${what}: its file holds ${codes.length} rows (${new Set(codes).size} codes), not the ${ex.codes.length} products`,
        );
    }
    const key = String(got.file_key);
    const whole = files.filter((f) => f === key);
    if (whole.length !== 1) failures.push(`${what}: ${whole.length} files at ${key}`);
    const completions = count(events, 'exports.completed', ex.id);
    if (completions !== 1) failures.push(`${what}: ${completions} exports.completed events`);
  }
  return {
    imports: ledger.imports.length,
    exports: ledger.exports.length,
    partialFiles: files.filter((f) => f.endsWith('.part')).length,
  };
}
