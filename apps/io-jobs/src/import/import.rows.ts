import {
  columnIndex,
  parseAttributeCell,
  parseBooleanCell,
  parseTextCell,
  splitList,
  headerTimeZone,
  stripFormulaQuote,
  type Cell,
  type SheetRow,
} from '@pim/sheets';
import { UTC, isSkippedTarget } from '@pim/resources';
import type { CatalogLink, CodedCollection, ImportAttribute } from '../links/catalog.link';
import { attributeKeyOf, type Mapping } from './import.mapping';

/** A row turned into a product for the catalog's bulk upsert. */
export interface RowItem {
  row: SheetRow;
  item: Record<string, unknown>;
}

/** A row that could not be turned into a product, with each problem in words. */
export interface RowProblem {
  row: SheetRow;
  problems: string[];
}

/** Where every imported product also goes. */
export interface ImportTargets {
  catalog?: { _id: string; user_groups: string[] };
  category_id?: string;
}

const REFERENCES: Record<string, { collection: CodedCollection; field: string; label: string }> = {
  brand: { collection: 'brands', field: 'brand_id', label: 'brand' },
  family: { collection: 'families', field: 'family_id', label: 'family' },
  categories: { collection: 'categories', field: 'categories', label: 'category' },
};

const union = <T>(a: T[], b: T[]) => [...new Set([...a, ...b])];

/** A row's cells without the `'` a CSV export puts before texts that start like a formula. */
export const unquotedRow = (row: SheetRow): SheetRow => ({
  ...row,
  cells: row.cells.map((c) => (typeof c === 'string' ? stripFormulaQuote(c) : c)),
});

/**
 * Turns sheet rows into product items, as spreadsheets hold values: texts per language, codes of
 * brands, families and categories looked up in the catalog (a batch's codes at once), lists
 * split on `|`, `;` or `,`, and attribute values parsed by their attribute's type. An empty cell
 * sets nothing (the stored value stays). A row with any problem is not sent; its problems name
 * the column (`C (Color): …`). With `stripFormulaQuote` (the import's `strip_formula_quote`), a
 * text cell loses the `'` a CSV export put before it first: the rows answered (and so the refused
 * rows kept for the error file) hold the cells as read that way. Date-times without an offset are
 * read in the zone their column's header names (`updated (America/Sao_Paulo)`, as exports title
 * them), else in `timeZone` (the import's).
 */
export class RowConverter {
  private readonly columns: { index: number; column: string; target: string; zone: string }[];
  private readonly label: Map<string, string>;
  private readonly stripFormulaQuote: boolean;

  constructor(
    mapping: Mapping,
    headers: { column: string; label: string }[],
    private readonly attributes: Map<string, ImportAttribute>,
    private readonly targets: ImportTargets,
    private readonly catalog: CatalogLink,
    options: { stripFormulaQuote?: boolean; timeZone?: string } = {},
  ) {
    this.stripFormulaQuote = options.stripFormulaQuote ?? true;
    this.label = new Map(headers.map((h) => [h.column, h.label]));
    const zoneOf = (column: string) => headerTimeZone(this.label.get(column) ?? '')?.zone ?? options.timeZone ?? UTC;
    // Columns of the platform's own exports that the platform keeps (`_id`, dates…) are read past.
    this.columns = Object.entries(mapping)
      .filter(([, target]) => !isSkippedTarget(target))
      .map(([column, target]) => ({ index: columnIndex(column), column, target, zone: zoneOf(column) }));
  }

  /** Where a problem is, for people: `C (Color)`. */
  columnName(column: string): string {
    const label = this.label.get(column);
    return label ? `${column} (${label})` : column;
  }

  /**
   * The column a product field was read from (`attributes.color` → `C (Color)`), for the catalog's
   * answers; a field read per language from several columns (a localizable attribute, `name`)
   * names each of them (`D (Story pt), E (Story en)`).
   */
  columnOf(field: string): string | undefined {
    const hit = this.columns.find(
      (c) =>
        c.target === field ||
        field.startsWith(`${c.target}.`) ||
        (REFERENCES[c.target] && field.startsWith(REFERENCES[c.target].field)),
    );
    if (hit) return this.columnName(hit.column);
    const perLanguage = this.columns.filter((c) => c.target.startsWith(`${field}.`));
    return perLanguage.length > 0 ? perLanguage.map((c) => this.columnName(c.column)).join(', ') : undefined;
  }

  /** The rows of one batch as items, or their problems. */
  async convert(sheetRows: SheetRow[]): Promise<{ items: RowItem[]; problems: RowProblem[] }> {
    const rows = this.stripFormulaQuote ? sheetRows.map(unquotedRow) : sheetRows;
    const ids = await this.lookUp(rows);
    const items: RowItem[] = [];
    const problems: RowProblem[] = [];
    const parsed = rows.map((row) => ({ row, ...this.rowToItem(row, ids) }));
    const needLists =
      (this.targets.category_id || this.targets.catalog) &&
      parsed.some((p) => p.problems.length === 0 && typeof p.item.code === 'string');
    const lists = needLists
      ? await this.catalog.productLists(parsed.flatMap((p) => (typeof p.item.code === 'string' ? [p.item.code] : [])))
      : new Map();
    for (const { row, item, problems: rowProblems } of parsed) {
      if (rowProblems.length > 0) {
        problems.push({ row, problems: rowProblems });
        continue;
      }
      const stored = lists.get(item.code as string);
      if (this.targets.category_id)
        item.categories = union((item.categories as string[]) ?? stored?.categories ?? [], [this.targets.category_id]);
      if (this.targets.catalog) {
        const catalogs = (stored?.catalogs ?? []) as { _id: string; user_groups: string[] }[];
        if (!catalogs.some((c) => c._id === this.targets.catalog!._id))
          item.catalogs = [...catalogs, this.targets.catalog];
      }
      items.push({ row, item });
    }
    return { items, problems };
  }

  /** Ids of the brands, families and categories a batch names, by collection and code. */
  private async lookUp(rows: SheetRow[]): Promise<Map<string, Map<string, string[]>>> {
    const found = new Map<string, Map<string, string[]>>();
    for (const { index, target } of this.columns) {
      const ref = REFERENCES[target];
      if (!ref) continue;
      const codes = new Set<string>();
      for (const row of rows) {
        const cell = row.cells[index] ?? null;
        for (const code of target === 'categories' ? splitList(cell) : [parseTextCell(cell)])
          if (code) codes.add(code.normalize('NFC'));
      }
      found.set(target, await this.catalog.idsByCode(ref.collection, [...codes]));
    }
    return found;
  }

  private rowToItem(
    row: SheetRow,
    ids: Map<string, Map<string, string[]>>,
  ): { item: Record<string, unknown>; problems: string[] } {
    const item: Record<string, unknown> = {};
    const problems: string[] = [];
    const problem = (column: string, message: string) => problems.push(`${this.columnName(column)}: ${message}`);
    for (const { index, column, target, zone } of this.columns) {
      const cell: Cell = row.cells[index] ?? null;
      // The number behind a cell shown through a number format (`00123`): yes/no and typed attributes read it.
      const formattedNumber = row.formattedNumbers?.[index];
      const [head, second, third] = target.split('.');
      if (head === 'code') {
        const code = parseTextCell(cell);
        if (code === undefined) problem(column, 'is empty; every row needs a product code');
        // Codes are stored in Unicode NFC: a sheet that writes é as e and an accent names the same product.
        else item.code = code.normalize('NFC');
      } else if (head === 'name' || head === 'description') {
        const text = parseTextCell(cell);
        if (text !== undefined) item[head] = { ...((item[head] as object) ?? {}), [second]: text };
      } else if (head === 'type') {
        const type = parseTextCell(cell);
        if (type !== undefined) item.type = type.toLowerCase();
      } else if (REFERENCES[head]) {
        const ref = REFERENCES[head];
        const codes = (
          head === 'categories' ? splitList(cell) : [parseTextCell(cell)].filter((c) => c !== undefined)
        ).map((c) => c.normalize('NFC'));
        if (codes.length === 0) continue;
        const resolved: string[] = [];
        for (const code of codes) {
          const hits = ids.get(head)?.get(code) ?? [];
          if (hits.length === 0) problem(column, `no ${ref.label} has the code '${code}'`);
          else if (hits.length > 1)
            problem(column, `${hits.length} categories have the code '${code}'; give each category a code of its own`);
          else resolved.push(hits[0]);
        }
        item[ref.field] = head === 'categories' ? [...new Set(resolved)] : resolved[0];
      } else if (head === 'tags' || head === 'images') {
        const list = splitList(cell);
        if (list.length > 0) item[head] = [...new Set(list)];
      } else if (head === 'image') {
        const url = parseTextCell(cell);
        if (url !== undefined) item.image = url;
      } else if (head === 'enabled') {
        const flag = parseBooleanCell(formattedNumber ?? cell);
        if (flag === undefined) continue;
        if ('error' in flag) problem(column, flag.error);
        else item.enabled = flag.value;
      } else if (head === 'attributes') {
        const attribute = this.attributes.get(attributeKeyOf(target)!);
        if (!attribute) {
          problem(column, `the attribute '${second}' no longer exists`);
          continue;
        }
        const value = parseAttributeCell(cell, attribute, formattedNumber, zone);
        if (value === undefined) continue;
        if ('error' in value) {
          problem(column, value.error);
          continue;
        }
        const attrs = (item.attributes ??= {}) as Record<string, unknown>;
        attrs[second] =
          third === undefined ? value.value : { ...((attrs[second] as object) ?? {}), [third]: value.value };
      }
    }
    return { item, problems };
  }
}
