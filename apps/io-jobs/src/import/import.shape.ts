import { columnIndex, headerTimeZone, parseTextCell, type Cell, type SheetRow } from '@pim/sheets';
import { RELATION_MAX_ITEMS, UTC } from '@pim/resources';
import type { RefusedRow } from '../repositories/import-errors.repository';
import type { Mapping } from './import.mapping';

// What the runner asks of each row shape (product rows, attribute rows, eligibility rows): how a
// batch of rows becomes writes, which rows must stay in one batch, and the rows refused.

/** A batch read and converted: the product codes it writes and how it is sent. */
export interface ShapedBatch {
  /** Codes of the products it writes: a batch sharing one with the batch ahead waits for it (sheet order). */
  codes: Set<string>;
  /** Sends it to the catalog under the batch's id and answers its refused rows, in sheet order. */
  send(batchId: string): Promise<RefusedRow[]>;
}

/** How the rows of one shape are read and written. */
export interface RowShape {
  /**
   * The key of rows written together (a product's attribute rows, the rows of a product's
   * relation): a batch is not cut between two consecutive rows of one key, nor before a row with
   * no key (it is refused alone and breaks no run), unless the batch has grown by
   * `GROUP_SLACK` rows past its size. Absent: batches are cut at their size.
   */
  groupOf?(row: SheetRow): string | undefined;
  /** Whether a resumed run reads the rows before its checkpoint, handed to `passed`. */
  readsPassedRows?: boolean;
  /** A row an earlier run already settled (a resumed run reads them again, in order, before the first batch). */
  passed?(row: SheetRow): void;
  prepare(rows: SheetRow[]): Promise<ShapedBatch>;
}

/**
 * How far a batch may grow past its size to keep a run of one key whole: a relation's most items
 * (a longer run is refused by the catalog anyway).
 */
export const GROUP_SLACK = RELATION_MAX_ITEMS;

/** A refused row as kept for the error file: its cells as read, its problems in one text. */
export const refusedRow = (row: SheetRow, problems: string[]): RefusedRow => ({
  row_number: row.number,
  cells: row.cells,
  problems: problems.join('; '),
});

/**
 * The columns a mapping reads by target (`attribute_key` → column C), named for people as
 * `C (attribute_key)`, each with the zone its header names (`value (America/Sao_Paulo)`) or the
 * import's.
 */
export class MappedColumns {
  private readonly byTarget = new Map<string, { column: string; index: number; zone: string }>();
  private readonly label: Map<string, string>;

  constructor(mapping: Mapping, headers: { column: string; label: string }[], timeZone: string = UTC) {
    this.label = new Map(headers.map((h) => [h.column, h.label]));
    for (const [column, target] of Object.entries(mapping)) {
      const zone = headerTimeZone(this.label.get(column) ?? '')?.zone ?? timeZone;
      this.byTarget.set(target, { column, index: columnIndex(column), zone });
    }
  }

  /** Whether a column is mapped to the target. */
  has(target: string): boolean {
    return this.byTarget.has(target);
  }

  /** The column of a target, for people: `C (attribute_key)`; the target itself when none is mapped to it. */
  name(target: string): string {
    const hit = this.byTarget.get(target);
    if (!hit) return target;
    const label = this.label.get(hit.column);
    return label ? `${hit.column} (${label})` : hit.column;
  }

  /** The zone date-times of the target's column are read in. */
  zone(target: string): string {
    return this.byTarget.get(target)?.zone ?? UTC;
  }

  /** The row's cell of the target's column (null when no column is mapped to it). */
  cell(row: SheetRow, target: string): Cell {
    const hit = this.byTarget.get(target);
    return hit ? (row.cells[hit.index] ?? null) : null;
  }

  /** The number behind the target's cell when a number format shows it as text (`00123`). */
  formattedNumber(row: SheetRow, target: string): number | undefined {
    const hit = this.byTarget.get(target);
    return hit ? row.formattedNumbers?.[hit.index] : undefined;
  }

  /** The target's cell as text, trimmed; undefined when empty or not mapped. */
  text(row: SheetRow, target: string): string | undefined {
    return parseTextCell(this.cell(row, target));
  }
}
