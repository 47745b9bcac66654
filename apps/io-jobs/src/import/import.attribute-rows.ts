import { parseAttributeCell, type SheetRow } from '@pim/sheets';
import type { BulkItemResult } from '@pim/resources';
import type { CatalogLink, ImportAttribute, StoredProduct } from '../links/catalog.link';
import type { RefusedRow } from '../repositories/import-errors.repository';
import type { Mapping } from './import.mapping';
import { unquotedRow, type ImportTargets } from './import.rows';
import { MappedColumns, refusedRow, type RowShape, type ShapedBatch } from './import.shape';

/** A language as attribute values name it: `en`, `pt-BR`. */
const LANGUAGE = /^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;

/** One attribute row as read: the product, the attribute, the language and the value it sets. */
export interface AttributeRow {
  row: SheetRow;
  code?: string;
  key?: string;
  language?: string;
  /** The value parsed by the attribute's type; undefined: the cell is empty and sets nothing. */
  value?: unknown;
  problems: string[];
}

/** The rows of one product in a batch, as one item of the catalog's bulk upsert. */
export interface ProductRows {
  code: string;
  rows: AttributeRow[];
  item: Record<string, unknown>;
}

const union = <T>(a: T[], b: T[]) => [...new Set([...a, ...b])];

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The rows of each product of a batch merged into one item (the catalog's bulk upsert takes a code
 * once per batch): its attribute values by key, the languages of a localizable text merged onto
 * those stored (a row sets one language and keeps the others; the catalog replaces an attribute's
 * value whole), in sheet order (a later row of one key and language wins). A product with any row
 * refused is not sent: its other rows are refused too, naming that row, since a product's rows are
 * stored together or not at all.
 */
export function mergeProductRows(
  read: AttributeRow[],
  attributes: Map<string, ImportAttribute | null>,
  stored: Map<string, StoredProduct>,
): { products: ProductRows[]; refused: AttributeRow[] } {
  const byCode = new Map<string, AttributeRow[]>();
  const refused: AttributeRow[] = [];
  for (const r of read) {
    if (r.code === undefined) refused.push(r);
    else byCode.set(r.code, [...(byCode.get(r.code) ?? []), r]);
  }
  const products: ProductRows[] = [];
  for (const [code, rows] of byCode) {
    const first = rows.find((r) => r.problems.length > 0);
    if (first) {
      for (const r of rows) {
        if (r.problems.length === 0) r.problems.push(notStoredBecause(code, first.row.number));
        refused.push(r);
      }
      continue;
    }
    const values: Record<string, unknown> = {};
    for (const r of rows) {
      if (r.value === undefined) continue;
      if (attributes.get(r.key!)?.localizable) {
        const earlier = values[r.key!] ?? stored.get(code)?.attributes[r.key!];
        values[r.key!] = { ...(isPlainObject(earlier) ? earlier : {}), [r.language!]: r.value };
      } else values[r.key!] = r.value;
    }
    products.push({ code, rows, item: { code, attributes: values } });
  }
  refused.sort((a, b) => a.row.number - b.row.number);
  return { products, refused };
}

const notStoredBecause = (code: string, row: number) =>
  `not stored: row ${row}, another value of product '${code}', was refused (a product's rows are stored together)`;

/**
 * The rows a refusal of a product's item concerns, each with its problems: a detail naming
 * `attributes.<key>` (or `attributes.<key>.<language>`) goes to the rows of that key (and
 * language); a detail naming no row's attribute, or a refusal with no details, goes to every row;
 * a row with no problem of its own is refused too, naming the row that was.
 */
export function attributeRowsRefusal(
  result: BulkItemResult,
  product: ProductRows,
  valueColumn: string,
): { row: AttributeRow; problems: string[] }[] {
  const error = result.error as { message?: string; details?: { field: string; message: string }[] } | undefined;
  const own = new Map<AttributeRow, string[]>();
  const everyRow: string[] = [];
  for (const d of error?.details ?? []) {
    const named = /^attributes\.([^.]+)(?:\.(.+))?$/.exec(d.field);
    const ofKey = named ? product.rows.filter((r) => r.key === named[1]) : [];
    const ofLanguage = named?.[2] ? ofKey.filter((r) => r.language === named[2]) : [];
    const rows = ofLanguage.length > 0 ? ofLanguage : ofKey;
    if (rows.length === 0) everyRow.push(`${d.field}: ${d.message}`);
    for (const r of rows) own.set(r, [...(own.get(r) ?? []), `${valueColumn}: ${d.message}`]);
  }
  if ((error?.details ?? []).length === 0) everyRow.push(error?.message ?? 'the catalog refused the product');
  const first = product.rows.find((r) => own.has(r)) ?? product.rows[0];
  return product.rows.map((r) => {
    const problems = [...(own.get(r) ?? []), ...everyRow];
    return {
      row: r,
      problems: problems.length > 0 ? problems : [notStoredBecause(product.code, first.row.number)],
    };
  });
}

/**
 * Attribute rows (a per_attributes export): each row sets one attribute value of an existing
 * product — `attribute_key`, in `language` for a localizable text attribute, to `value`, parsed by
 * the attribute's type as a product row's attribute cell is (a date-time in the zone the value
 * column's header names, else the import's). An empty value sets nothing. The rows of one product
 * in a batch are merged into one item of the catalog's bulk upsert (`mergeProductRows`); consecutive
 * rows of one product are never split between batches.
 */
export class AttributeRows implements RowShape {
  private readonly columns: MappedColumns;
  private readonly strip: boolean;
  /** Attributes by key as first looked up (null: no live attribute has the key). */
  private readonly attributes = new Map<string, ImportAttribute | null>();

  constructor(
    mapping: Mapping,
    headers: { column: string; label: string }[],
    private readonly targets: ImportTargets,
    private readonly catalog: CatalogLink,
    options: { stripFormulaQuote?: boolean; timeZone?: string } = {},
  ) {
    this.strip = options.stripFormulaQuote ?? true;
    this.columns = new MappedColumns(mapping, headers, options.timeZone);
  }

  groupOf(row: SheetRow): string | undefined {
    return this.columns.text(this.strip ? unquotedRow(row) : row, 'code');
  }

  async prepare(sheetRows: SheetRow[]): Promise<ShapedBatch> {
    const rows = this.strip ? sheetRows.map(unquotedRow) : sheetRows;
    const read = rows.map((row) => ({
      row,
      code: this.columns.text(row, 'code'),
      key: this.columns.text(row, 'attribute_key'),
      language: this.columns.text(row, 'language'),
      problems: [] as string[],
    }));
    await this.lookUp(read.flatMap((r) => r.key ?? []));
    const rowsRead = read.map((r) => this.readRow(r));
    return {
      codes: new Set(rowsRead.flatMap((r) => r.code ?? [])),
      send: (batchId) => this.send(rowsRead, batchId),
    };
  }

  /** Looks up the keys not looked up before. */
  private async lookUp(keys: string[]): Promise<void> {
    const missing = [...new Set(keys)].filter((k) => !this.attributes.has(k));
    if (missing.length === 0) return;
    const found = new Map((await this.catalog.attributes(missing)).map((a) => [a.key, a]));
    for (const key of missing) this.attributes.set(key, found.get(key) ?? null);
  }

  private readRow(r: Omit<AttributeRow, 'value'>): AttributeRow {
    const c = this.columns;
    const problem = (target: string, message: string) => r.problems.push(`${c.name(target)}: ${message}`);
    if (r.code === undefined) problem('code', 'is empty; every row needs a product code');
    if (r.key === undefined) {
      problem('attribute_key', 'is empty; every row names the attribute it sets');
      return r;
    }
    const attribute = this.attributes.get(r.key);
    if (!attribute) {
      problem('attribute_key', `no live attribute has the key '${r.key}'`);
      return r;
    }
    if (attribute.localizable) {
      if (!c.has('language'))
        problem(
          'attribute_key',
          `attribute '${r.key}' is localizable: map a column to language, naming the language of each row's value`,
        );
      else if (r.language === undefined)
        problem('language', `is empty; attribute '${r.key}' is localizable: each of its rows names a language`);
      else if (!LANGUAGE.test(r.language))
        problem('language', `'${r.language}' is not a language code (write en, pt-BR…)`);
    } else if (r.language !== undefined) {
      problem('language', `attribute '${r.key}' is not localizable: leave language empty`);
    }
    const value = parseAttributeCell(
      c.cell(r.row, 'value'),
      attribute,
      c.formattedNumber(r.row, 'value'),
      c.zone('value'),
    );
    if (value !== undefined && 'error' in value) problem('value', value.error);
    else if (value !== undefined) return { ...r, value: value.value };
    return r;
  }

  /** The import's catalog and category, added to each product's (kept with those it has). */
  private addTargets(item: Record<string, unknown>, stored: StoredProduct | undefined): void {
    if (this.targets.category_id) item.categories = union(stored?.categories ?? [], [this.targets.category_id]);
    if (this.targets.catalog) {
      const catalogs = stored?.catalogs ?? [];
      if (!catalogs.some((c) => c._id === this.targets.catalog!._id))
        item.catalogs = [...catalogs, this.targets.catalog];
    }
  }

  /**
   * Reads the batch's products as stored now (after any batch ahead that writes one of them: the
   * runner waits for it), merges each product's rows onto them and sends one item per code, in the
   * order the batch first names them; answers the rows refused. A product whose rows are refused
   * here is sent as its code alone, which changes nothing: the items depend on the file's codes
   * only, so a batch resent after a crash lines up with the outcomes the catalog recorded for it.
   * A code that names no product is refused by the catalog (a product is not made from attribute
   * values alone: it needs a name), and said so.
   */
  private async send(read: AttributeRow[], batchId: string): Promise<RefusedRow[]> {
    const codes = [...new Set(read.flatMap((r) => r.code ?? []))];
    const stored = await this.catalog.storedProducts(codes);
    const { products, refused: early } = mergeProductRows(read, this.attributes, stored);
    const byCode = new Map(products.map((p) => [p.code, p]));
    for (const p of products) this.addTargets(p.item, stored.get(p.code));
    const refused = early.map((r) => refusedRow(r.row, r.problems));
    if (products.length === 0) return refused;
    const results = await this.catalog.upsert(
      codes.map((code) => byCode.get(code)?.item ?? { code }),
      batchId,
    );
    results.forEach((result, i) => {
      const product = byCode.get(codes[i]);
      if (!product || result.status !== 'failed') return;
      const refusals = stored.has(product.code)
        ? attributeRowsRefusal(result, product, this.columns.name('value'))
        : product.rows.map((row) => ({
            row,
            problems: [
              `${this.columns.name('code')}: no product has the code '${product.code}' (attribute rows change existing products; create it with one row per product first)`,
            ],
          }));
      for (const { row, problems } of refusals) refused.push(refusedRow(row.row, problems));
    });
    return refused.sort((a, b) => a.row_number - b.row_number);
  }
}
