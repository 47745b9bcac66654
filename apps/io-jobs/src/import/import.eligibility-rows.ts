import {
  AuthorizationError,
  ConflictError,
  NotFoundError,
  PreconditionFailedError,
  ValidationError,
  type PimError,
} from '@pim/errors';
import { parseBooleanCell, type SheetRow } from '@pim/sheets';
import { SERVICE_ELIGIBILITY_TYPES, type ServiceEligibilityType } from '@pim/resources';
import type { relations as rpb } from '@pim/contracts';
import type { CatalogLink, NamedRecord, RelationWrite } from '../links/catalog.link';
import type { RefusedRow } from '../repositories/import-errors.repository';
import type { Mapping } from './import.mapping';
import { unquotedRow } from './import.rows';
import { MappedColumns, refusedRow, type RowShape, type ShapedBatch } from './import.shape';

/** One item of a relation, as the catalog keeps it. */
export type RelationItem = { id: string; category_tree_id?: string };

/** One eligibility row as read: the product, the relation, the item it lists. */
export interface EligibilityRow {
  row: SheetRow;
  code?: string;
  relation?: ServiceEligibilityType;
  /** The pair it belongs to (code and relation as read): rows of one key are one relation's items. */
  key?: string;
  /** The run of consecutive rows of its key it is read in: a run is one relation's items. */
  run?: number;
  itemCode?: string;
  itemId?: string;
  tree?: string;
  /** The item resolved to an id (and, for an ineligible category, its tree). */
  item?: RelationItem;
  problems: string[];
}

/** The rows of one product's relation: the relation's items become exactly the items they list. */
export interface RelationRows {
  code: string;
  relation: ServiceEligibilityType;
  productId: string;
  rows: EligibilityRow[];
  /** Each item once, in the order the rows first list it. */
  items: RelationItem[];
  /** The rows listing each item, by the item's index. */
  rowsOfItem: EligibilityRow[][];
}

/** Relations written at once by one batch (each is its own call to the catalog). */
const WRITERS = 4;
/** Tries of a write that meets a relation changed meanwhile (created, or at another version). */
const WRITE_TRIES = 3;

const categoryRelation = (r: ServiceEligibilityType) => r.endsWith('_categories');

/** Whether the items stored are the items listed: the same ids, in the same order, with the same trees. */
export function sameItems(stored: readonly rpb.ProductRelationItem[], listed: readonly RelationItem[]): boolean {
  return (
    stored.length === listed.length &&
    stored.every((s, i) => s.id === listed[i].id && (s.category_tree_id ?? undefined) === listed[i].category_tree_id)
  );
}

/**
 * The rows of each run (consecutive rows of one product's relation) as one list of items: each
 * item once (a row listing an item again adds nothing), in the order rows first list them. A
 * relation with any row refused is not written: its other rows are refused too, naming that row,
 * since a relation's items are set from all its rows at once.
 */
export function relationRows(read: EligibilityRow[], productIds: Map<string, string>): RelationRows[] {
  const byRun = new Map<number, EligibilityRow[]>();
  for (const r of read) if (r.run !== undefined) byRun.set(r.run, [...(byRun.get(r.run) ?? []), r]);
  const runs: RelationRows[] = [];
  for (const rows of byRun.values()) {
    const first = rows.find((r) => r.problems.length > 0);
    if (first) {
      for (const r of rows) if (r.problems.length === 0) r.problems.push(notStoredBecause(r, first.row.number));
      continue;
    }
    const items: RelationItem[] = [];
    const rowsOfItem: EligibilityRow[][] = [];
    const at = new Map<string, number>();
    for (const r of rows) {
      const index = at.get(r.item!.id);
      if (index !== undefined) {
        rowsOfItem[index].push(r);
        continue;
      }
      at.set(r.item!.id, items.length);
      items.push(r.item!);
      rowsOfItem.push([r]);
    }
    const { code, relation } = rows[0] as Required<EligibilityRow>;
    runs.push({ code, relation, productId: productIds.get(code)!, rows, items, rowsOfItem });
  }
  return runs;
}

const notStoredBecause = (r: EligibilityRow, row: number) =>
  `not stored: row ${row}, another item of product '${r.code}' ${r.relation ?? 'relation'}, was refused (a relation's items are set from all its rows at once)`;

/**
 * Eligibility rows (an eligibility_services export): for each product and relation type the file
 * names, the relation's items become exactly the items its rows list — by `item_code` (a product's
 * code, or a category's: `category_tree`, a tree's code, picks among categories sharing one), else
 * by `item_id` —, in the order listed; relations the file does not name are left alone. A relation
 * whose items are already those is not written (no new version), so a file imports back changing
 * nothing, and a batch resent after a crash writes nothing twice (each write is create-or-replace by
 * the relation's key, `<product_id>:<type>`). The rows of one product's relation must follow one
 * another (a batch is never cut between them): rows apart from the first ones are refused, since
 * writing them would replace the items the first ones set.
 */
export class EligibilityRows implements RowShape {
  readonly readsPassedRows = true;
  private readonly columns: MappedColumns;
  private readonly strip: boolean;
  /** The run of rows of one key being read, and the keys of the runs read before, with their rows. */
  private current?: { key: string; first: number; last: number; run: number };
  private readonly done = new Map<string, { first: number; last: number }>();
  private runs = 0;

  constructor(
    mapping: Mapping,
    headers: { column: string; label: string }[],
    private readonly catalog: CatalogLink,
    options: { stripFormulaQuote?: boolean; timeZone?: string } = {},
  ) {
    this.strip = options.stripFormulaQuote ?? true;
    this.columns = new MappedColumns(mapping, headers, options.timeZone);
  }

  /** The pair a row belongs to: its code and relation as read (an unknown relation too: its rows are refused together). */
  private keyOf(row: SheetRow): string | undefined {
    const code = this.columns.text(row, 'code');
    const relation = this.columns.text(row, 'relation')?.toLowerCase();
    return code !== undefined && relation !== undefined ? `${code}\u0000${relation}` : undefined;
  }

  groupOf(row: SheetRow): string | undefined {
    return this.keyOf(this.strip ? unquotedRow(row) : row);
  }

  passed(row: SheetRow): void {
    this.track(this.groupOf(row), row.number);
  }

  /**
   * Follows runs of rows of one key: answers the row's run, and the earlier run of its key when
   * the row starts another apart from it.
   */
  private track(key: string | undefined, row: number): { run?: number; earlier?: { first: number; last: number } } {
    if (key === undefined) return {};
    if (this.current?.key === key) {
      this.current.last = row;
      return { run: this.current.run };
    }
    this.closeRun();
    this.current = { key, first: row, last: row, run: ++this.runs };
    return { run: this.current.run, earlier: this.done.get(key) };
  }

  private closeRun(): void {
    if (this.current && !this.done.has(this.current.key))
      this.done.set(this.current.key, { first: this.current.first, last: this.current.last });
    this.current = undefined;
  }

  async prepare(sheetRows: SheetRow[]): Promise<ShapedBatch> {
    // A run is never continued by the next batch (the runner cuts between runs, or after one too
    // long for a relation): its rows there would replace the items this batch sets.
    this.closeRun();
    const rows = this.strip ? sheetRows.map(unquotedRow) : sheetRows;
    const read = rows.map((row) => this.readRow(row));
    const productIds = await this.resolve(read);
    const runs = relationRows(read, productIds);
    const refused = read.filter((r) => r.problems.length > 0);
    return {
      codes: new Set(runs.map((r) => r.code)),
      send: () => this.send(runs, refused),
    };
  }

  private readRow(row: SheetRow): EligibilityRow {
    const c = this.columns;
    const r: EligibilityRow = {
      row,
      code: c.text(row, 'code'),
      itemCode: c.text(row, 'item_code'),
      itemId: c.text(row, 'item_id'),
      tree: c.text(row, 'category_tree'),
      key: this.keyOf(row),
      problems: [],
    };
    const problem = (target: string, message: string) => r.problems.push(`${c.name(target)}: ${message}`);
    const { run, earlier } = this.track(r.key, row.number);
    r.run = run;
    if (r.code === undefined) problem('code', 'is empty; every row needs a product code');
    const relation = c.text(row, 'relation')?.toLowerCase();
    if (relation === undefined) problem('relation', 'is empty; every row names the relation it lists an item of');
    else if (!(SERVICE_ELIGIBILITY_TYPES as readonly string[]).includes(relation))
      problem(
        'relation',
        `'${relation}' is not a service eligibility relation (one of ${SERVICE_ELIGIBILITY_TYPES.join(', ')})`,
      );
    else r.relation = relation as ServiceEligibilityType;
    if (earlier && r.relation)
      problem(
        'relation',
        `rows ${earlier.first}–${earlier.last} set the items of product '${r.code}' ${r.relation} already: the rows of one product's relation must follow one another (at most 1,000), so move this row beside them and import them together`,
      );
    if (r.itemCode === undefined && r.itemId === undefined)
      problem(c.has('item_code') ? 'item_code' : 'item_id', 'is empty; every row names an item (by code, or by _id)');
    if (r.relation) this.checkAgrees(r, r.relation, problem);
    return r;
  }

  /** `eligible` and `item_type`, when filled, must say what the relation says: an item moves by its relation. */
  private checkAgrees(
    r: EligibilityRow,
    relation: ServiceEligibilityType,
    problem: (target: string, message: string) => void,
  ): void {
    const c = this.columns;
    const eligible = parseBooleanCell(c.formattedNumber(r.row, 'eligible') ?? c.cell(r.row, 'eligible'));
    if (eligible && 'error' in eligible) problem('eligible', eligible.error);
    else if (eligible && eligible.value !== relation.startsWith('eligible'))
      problem(
        'eligible',
        `says ${eligible.value}, but ${relation} lists items that are ${eligible.value ? 'not ' : ''}eligible: to move an item, change its relation`,
      );
    const type = c.text(r.row, 'item_type')?.toLowerCase();
    const kind = categoryRelation(relation) ? 'category' : 'product';
    if (type !== undefined && type !== kind)
      problem(
        'item_type',
        type === 'product' || type === 'category'
          ? `says ${type}, but ${relation} lists ${kind === 'product' ? 'products' : 'categories'}`
          : `'${type}' is not an item type (product or category)`,
      );
  }

  /**
   * Resolves the batch's codes and ids: products (the rows' and the items named by code) by code,
   * categories by code (within the tree `category_tree` names) or by id, each row's item set or a
   * problem said; answers the products' ids by code.
   */
  private async resolve(read: EligibilityRow[]): Promise<Map<string, string>> {
    const c = this.columns;
    const isCategory = (r: EligibilityRow) => r.relation !== undefined && categoryRelation(r.relation);
    const uniq = (xs: (string | undefined)[]) => [...new Set(xs.flatMap((x) => x ?? []))];
    const productCodes = uniq([
      ...read.map((r) => r.code),
      ...read.filter((r) => r.relation && !isCategory(r)).map((r) => r.itemCode),
    ]);
    const categoryRows = read.filter(isCategory);
    const [products, categories, trees, categoriesById] = await Promise.all([
      this.catalog.recordsByCode('products', productCodes),
      this.catalog.recordsByCode('categories', uniq(categoryRows.map((r) => r.itemCode))),
      this.catalog.recordsByCode('category_trees', uniq(categoryRows.map((r) => r.tree))),
      this.catalog.named('categories', uniq(categoryRows.filter((r) => r.itemCode === undefined).map((r) => r.itemId))),
    ]);
    const productIds = new Map(products.map((p) => [p.code, p.id]));
    const group = (records: NamedRecord[], by: (r: NamedRecord) => string) => {
      const m = new Map<string, NamedRecord[]>();
      for (const r of records) m.set(by(r), [...(m.get(by(r)) ?? []), r]);
      return m;
    };
    const categoriesByCode = group(categories, (r) => r.code);
    const treeIds = group(trees, (r) => r.code);
    const byId = new Map(categoriesById.map((r) => [r.id, r]));
    for (const r of read) {
      const problem = (target: string, message: string) => r.problems.push(`${c.name(target)}: ${message}`);
      if (r.code !== undefined && !productIds.has(r.code)) problem('code', `no product has the code '${r.code}'`);
      if (!r.relation || (r.itemCode === undefined && r.itemId === undefined)) continue;
      if (!categoryRelation(r.relation)) {
        if (r.itemCode === undefined) r.item = { id: r.itemId! };
        else if (productIds.has(r.itemCode)) r.item = { id: productIds.get(r.itemCode)! };
        else problem('item_code', `no product has the code '${r.itemCode}'`);
        continue;
      }
      let inTree: Set<string> | undefined;
      if (r.tree !== undefined) {
        inTree = new Set((treeIds.get(r.tree) ?? []).map((t) => t.id));
        if (inTree.size === 0) {
          problem('category_tree', `no category tree has the code '${r.tree}'`);
          continue;
        }
      }
      let category: NamedRecord | undefined;
      if (r.itemCode !== undefined) {
        const hits = (categoriesByCode.get(r.itemCode) ?? []).filter(
          (h) => !inTree || inTree.has(h.category_tree_id ?? ''),
        );
        if (hits.length === 0)
          problem(
            'item_code',
            `no category ${r.tree !== undefined ? `of tree '${r.tree}' ` : ''}has the code '${r.itemCode}'`,
          );
        else if (hits.length > 1)
          problem(
            'item_code',
            `${hits.length} categories have the code '${r.itemCode}', in different trees: fill ${c.has('category_tree') ? c.name('category_tree') : 'a column mapped to category_tree'} with the code of its tree`,
          );
        else category = hits[0];
      } else {
        category = byId.get(r.itemId!);
        if (!category) problem('item_id', `no category has the _id '${r.itemId}'`);
        else if (inTree && !inTree.has(category.category_tree_id ?? '')) {
          problem('category_tree', `category '${r.itemId}' is not in the tree '${r.tree}'`);
          category = undefined;
        }
      }
      if (category)
        r.item =
          r.relation === 'ineligible_service_categories'
            ? { id: category.id, category_tree_id: category.category_tree_id! }
            : { id: category.id };
    }
    return productIds;
  }

  /** Writes each relation (a few at once) and answers the rows refused, here or by the catalog. */
  private async send(runs: RelationRows[], early: EligibilityRow[]): Promise<RefusedRow[]> {
    const refused = early.map((r) => refusedRow(r.row, r.problems));
    const stored = new Map(
      (await this.catalog.relationsByKey(runs.map((r) => `${r.productId}:${r.relation}`))).map((s) => [
        `${s.product_id}:${s.type}`,
        s,
      ]),
    );
    let next = 0;
    const worker = async () => {
      while (next < runs.length) {
        const run = runs[next++];
        const error = await this.write(run, stored.get(`${run.productId}:${run.relation}`));
        if (error)
          for (const { row, problems } of this.refusal(error, run)) refused.push(refusedRow(row.row, problems));
      }
    };
    await Promise.all(Array.from({ length: Math.min(WRITERS, runs.length) }, worker));
    return refused.sort((a, b) => a.row_number - b.row_number);
  }

  /**
   * Makes the relation hold exactly the run's items: nothing when it does already; else replaced at
   * the version read, or created. A relation created or changed meanwhile is read again and the
   * write tried again. Answers the catalog's refusal, or undefined; a failure that is no refusal
   * (the catalog away) is thrown, and the job retries the batch.
   */
  private async write(run: RelationRows, current: rpb.ProductRelation | undefined): Promise<PimError | undefined> {
    const relation: RelationWrite = { product_id: run.productId, type: run.relation, items: run.items };
    for (let attempt = 1; ; attempt++) {
      if (current && sameItems(current[run.relation] ?? [], run.items)) return undefined;
      try {
        if (current) await this.catalog.updateRelation(current.id, relation, current.version);
        else await this.catalog.createRelation(relation);
        return undefined;
      } catch (err) {
        const raced = err instanceof ConflictError || err instanceof PreconditionFailedError;
        if (raced && attempt < WRITE_TRIES) {
          [current] = await this.catalog.relationsByKey([`${run.productId}:${run.relation}`]);
          continue;
        }
        if (
          raced ||
          err instanceof ValidationError ||
          err instanceof NotFoundError ||
          err instanceof AuthorizationError
        )
          return err;
        throw err;
      }
    }
  }

  /**
   * The rows a refusal of a relation concerns, each with its problems: a detail naming an item
   * (`eligible_service_products.2.id`) goes to the rows listing that item, any other detail, or a
   * refusal with no details, to every row; a row with no problem of its own is refused too, naming
   * the row that was.
   */
  private refusal(error: PimError, run: RelationRows): { row: EligibilityRow; problems: string[] }[] {
    const c = this.columns;
    const own = new Map<EligibilityRow, string[]>();
    const everyRow: string[] = [];
    for (const d of error.details ?? []) {
      const item = new RegExp(`^${run.relation}\\.(\\d+)(?:\\.(\\w+))?$`).exec(d.field);
      const rows = item ? (run.rowsOfItem[Number(item[1])] ?? []) : [];
      if (rows.length === 0) everyRow.push(`${d.field}: ${d.message}`);
      for (const r of rows) {
        const target =
          item?.[2] === 'category_tree_id' && c.has('category_tree')
            ? 'category_tree'
            : r.itemCode !== undefined
              ? 'item_code'
              : 'item_id';
        own.set(r, [...(own.get(r) ?? []), `${c.name(target)}: ${d.message}`]);
      }
    }
    if ((error.details ?? []).length === 0) everyRow.push(error.message);
    const first = run.rows.find((r) => own.has(r)) ?? run.rows[0];
    return run.rows.map((r) => {
      const problems = [...(own.get(r) ?? []), ...everyRow];
      return { row: r, problems: problems.length > 0 ? problems : [notStoredBecause(r, first.row.number)] };
    });
  }
}
