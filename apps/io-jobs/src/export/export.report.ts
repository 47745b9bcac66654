import { ValidationError, type ErrorDetail } from '@pim/errors';
import type { products as ppb, relations as rpb } from '@pim/contracts';
import {
  ATTRIBUTE_KEY_SOURCE,
  SERVICE_ELIGIBILITY_TYPES,
  UTC,
  type ExportHeader,
  type ExportReportType,
  type ServiceEligibilityType,
} from '@pim/resources';
import { joinList, labelWithTimeZone, type WriteCell } from '@pim/sheets';
import type { ImportAttribute, NamedCollection, NamedRecord } from '../links/catalog.link';
import { LIST_SEPARATOR, attributeCell, firstText, instantCell, type Failures } from './export.cells';

// The three report types as columns over items: a general report has one item per product, a
// per_attributes report one per attribute value, an eligibility_services report one per service
// eligibility item. Columns are chosen (and titled) by the export's headers, or all of them.

/** A product as the catalog's scan sends it. */
export type Product = ppb.Product;

/** Records the batch's products name, by collection and id (undefined: not live). */
export type Names = (collection: NamedCollection, id: string | undefined) => NamedRecord | undefined;

/** What the rows of a batch are built with. */
export interface BatchContext {
  names: Names;
  /** The product's relations of the types the report reads. */
  relationsOf(productId: string): rpb.ProductRelation[];
  attributes: Map<string, ImportAttribute>;
  fail: Failures;
}

/** A column: its title and how an item fills it. */
interface Column<I> {
  label: string;
  cell(item: I, ctx: BatchContext): WriteCell;
  /** It holds date-times: its header names the export's time zone. */
  zoned?: boolean;
}

/** A report type, settled for one export: its header row, what it needs per batch and its rows. */
export interface Report {
  header: string[];
  /** The attributes its cells are typed by, by key. */
  attributes: Map<string, ImportAttribute>;
  /** Relation types each batch's products are read with (eligibility). */
  relationTypes: string[];
  /** The records each product names, to resolve before its rows are built. */
  namesOf(p: Product): [NamedCollection, string][];
  rows(p: Product, ctx: BatchContext): WriteCell[][];
}

/** What a report is settled with: the attributes it may write and the languages to spread texts over. */
export interface ReportInputs {
  headers: ExportHeader[];
  /** Attribute keys the default columns (general) or rows (per_attributes) cover. */
  attributeKeys: string[];
  attributes: Map<string, ImportAttribute>;
  languages: string[];
  /** The zone date-times are written in, named in their columns' header cells (default UTC). */
  timeZone?: string;
}

const LANGUAGE = '[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*';
const TEXT_FIELD = new RegExp(`^(name|description|completeness)\\.(${LANGUAGE})$`);
const ATTRIBUTE_FIELD = new RegExp(`^attributes\\.(${ATTRIBUTE_KEY_SOURCE})(?:\\.(${LANGUAGE}))?$`);

const codeOf = (r: NamedRecord | undefined) => r?.code;
const instant = (s: string | undefined) => (s ? instantCell(s) : null);

/** Codes of the records a list of ids names (ids no longer live are left out and counted). */
function codes(collection: NamedCollection, ids: string[], ctx: BatchContext): string {
  const out: string[] = [];
  for (const id of ids) {
    const code = codeOf(ctx.names(collection, id));
    if (code === undefined) ctx.fail.fields += 1;
    else out.push(code);
  }
  return joinList(out);
}

/** A code of one named record, or null (counted when the id names no live record). */
function code(collection: NamedCollection, id: string | undefined, ctx: BatchContext): WriteCell {
  if (!id) return null;
  const found = codeOf(ctx.names(collection, id));
  if (found === undefined) ctx.fail.fields += 1;
  return found ?? null;
}

/** The product fields a general report writes by name (besides name.<l>, description.<l>, completeness.<l>, attributes.<key>). */
const PRODUCT_FIELDS: Record<string, (p: Product, ctx: BatchContext) => WriteCell> = {
  _id: (p) => p.id,
  code: (p) => p.code,
  type: (p) => p.type,
  enabled: (p) => p.enabled,
  brand: (p, ctx) => code('brands', p.brand_id, ctx),
  family: (p, ctx) => code('families', p.family_id, ctx),
  categories: (p, ctx) => codes('categories', p.categories, ctx),
  category_trees: (p, ctx) => codes('category_trees', p.category_trees, ctx),
  parent: (p, ctx) => code('products', p.product_id, ctx),
  catalogs: (p) => p.catalogs.map((c) => c.id).join(LIST_SEPARATOR),
  tags: (p) => joinList(p.tags),
  image: (p) => p.image ?? null,
  images: (p) => joinList(p.images),
  fulfilled: (p) => p.fulfilled ?? null,
  published: (p) => p.published,
  last_published_at: (p) => instant(p.last_published_at),
  created_at: (p) => instant(p.created_at),
  updated_at: (p) => instant(p.updated_at),
};
/** The product fields that hold date-times. */
const INSTANT_FIELDS = new Set(['last_published_at', 'created_at', 'updated_at']);

/** The fields of a general report's default columns, before the texts and after the attributes. */
const GENERAL_LEADING = ['_id', 'code', 'type', 'enabled'];
const GENERAL_MIDDLE = [
  'brand',
  'family',
  'categories',
  'category_trees',
  'parent',
  'tags',
  'image',
  'images',
  'fulfilled',
  'published',
];
const GENERAL_TRAILING = ['created_at', 'updated_at'];

function refuse(details: ErrorDetail[], allowed: string): never {
  throw new ValidationError(details.map((d) => `${d.field} ${d.message}`).join('; '), {
    title: 'Unknown export column',
    solution: allowed,
    details,
  });
}

/** The column a general report's header names, or a problem. */
function generalColumn(h: ExportHeader, attributes: Map<string, ImportAttribute>): Column<Product> | string {
  const value = h.value ?? h.label;
  const path = h.isAttribute ? `attributes.${value}` : value;
  const field = PRODUCT_FIELDS[path];
  if (field) return { label: h.label, cell: field, zoned: INSTANT_FIELDS.has(path) };
  const text = TEXT_FIELD.exec(path);
  if (text) {
    const [, which, language] = text;
    if (which === 'completeness') return { label: h.label, cell: (p) => p.completeness[language] ?? null };
    return { label: h.label, cell: (p) => (which === 'name' ? p.name : p.description)[language] ?? null };
  }
  const attr = ATTRIBUTE_FIELD.exec(path);
  if (!attr) return 'names no product field';
  const [, key, language] = attr;
  const attribute = attributes.get(key);
  if (!attribute) return `names no live attribute '${key}'`;
  if (language !== undefined && !attribute.localizable)
    return `names a language of '${key}', which is not a localizable text attribute`;
  return {
    label: h.label,
    cell: (p, ctx) => attributeCell(p.attributes?.[key], ctx.attributes.get(key), language, ctx.fail),
    zoned: attribute.type === 'datetime',
  };
}

/** A general report's columns when the export names none: every field, every language, every attribute in use. */
function generalDefaults(inputs: ReportInputs): ExportHeader[] {
  const plain = (value: string): ExportHeader => ({ label: value, isAttribute: false });
  const texts = (which: string) => inputs.languages.map((l) => plain(`${which}.${l}`));
  const attributes = inputs.attributeKeys.flatMap((key) => {
    const a = inputs.attributes.get(key);
    if (!a) return [];
    return a.localizable && inputs.languages.length > 0
      ? inputs.languages.map((l) => plain(`attributes.${key}.${l}`))
      : [plain(`attributes.${key}`)];
  });
  return [
    ...GENERAL_LEADING.map(plain),
    ...texts('name'),
    ...texts('description'),
    ...GENERAL_MIDDLE.map(plain),
    ...attributes,
    ...GENERAL_TRAILING.map(plain),
  ];
}

/** Columns chosen from a fixed set by the headers' values (all of them, in order, when none are named). */
function chosen<I>(
  available: Record<string, (item: I, ctx: BatchContext) => WriteCell>,
  defaults: string[],
  headers: ExportHeader[],
): Column<I>[] {
  if (headers.length === 0) return defaults.map((value) => ({ label: value, cell: available[value] }));
  const problems: ErrorDetail[] = [];
  const columns = headers.flatMap((h, i) => {
    const value = h.value ?? h.label;
    const cell = available[value];
    if (!cell || h.isAttribute) {
      problems.push({ field: `headers.${i}.value`, message: `'${value}' is not a column of this report` });
      return [];
    }
    return [{ label: h.label, cell }];
  });
  if (problems.length > 0) refuse(problems, `Use values among: ${Object.keys(available).join(', ')}`);
  return columns;
}

/** One attribute value of a product: per language for a localizable text. */
interface AttributeItem {
  product: Product;
  key: string;
  language?: string;
  value: unknown;
}

const PER_ATTRIBUTE_COLUMNS: Record<string, (item: AttributeItem, ctx: BatchContext) => WriteCell> = {
  _id: (i) => i.product.id,
  code: (i) => i.product.code,
  product_name: (i) => firstText(i.product.name),
  attribute_key: (i) => i.key,
  attribute_name: (i, ctx) => {
    const name = ctx.attributes.get(i.key)?.name;
    return (i.language !== undefined ? name?.[i.language] : undefined) ?? firstText(name);
  },
  attribute_type: (i, ctx) => ctx.attributes.get(i.key)?.type ?? null,
  language: (i) => i.language ?? null,
  value: (i, ctx) => attributeCell(i.value, ctx.attributes.get(i.key), i.language, ctx.fail),
};
const PER_ATTRIBUTE_DEFAULTS = ['code', 'attribute_key', 'attribute_name', 'language', 'value'];

/** The service eligibility relation types: which items a product's eligibility names (an import of the rows sets them). */
export const ELIGIBILITY_TYPES = SERVICE_ELIGIBILITY_TYPES;
type EligibilityType = ServiceEligibilityType;

/** One item of a product's service eligibility. */
interface EligibilityItem {
  product: Product;
  relation: EligibilityType;
  item: rpb.ProductRelationItem;
}

const isCategory = (i: EligibilityItem) => i.relation.endsWith('_categories');
const itemRecord = (i: EligibilityItem, ctx: BatchContext) =>
  ctx.names(isCategory(i) ? 'categories' : 'products', i.item.id);

const ELIGIBILITY_COLUMNS: Record<string, (item: EligibilityItem, ctx: BatchContext) => WriteCell> = {
  _id: (i) => i.product.id,
  code: (i) => i.product.code,
  product_name: (i) => firstText(i.product.name),
  relation: (i) => i.relation,
  eligible: (i) => i.relation.startsWith('eligible'),
  item_type: (i) => (isCategory(i) ? 'category' : 'product'),
  item_id: (i) => i.item.id,
  item_code: (i, ctx) => itemRecord(i, ctx)?.code ?? null,
  item_name: (i, ctx) => firstText(itemRecord(i, ctx)?.name),
  category_tree: (i, ctx) => {
    if (!isCategory(i)) return null;
    const tree = i.item.category_tree_id ?? ctx.names('categories', i.item.id)?.category_tree_id;
    return ctx.names('category_trees', tree)?.code ?? null;
  },
};
const ELIGIBILITY_DEFAULTS = [
  'code',
  'product_name',
  'relation',
  'eligible',
  'item_type',
  'item_id',
  'item_code',
  'item_name',
  'category_tree',
];

const row = <I>(columns: Column<I>[], item: I, ctx: BatchContext): WriteCell[] => columns.map((c) => c.cell(item, ctx));

/** The header row: a date-time column's title names the zone its times are written in (`updated_at (UTC)`). */
const headerOf = <I>(columns: Column<I>[], zone: string): string[] =>
  columns.map((c) => (c.zoned ? labelWithTimeZone(c.label, zone) : c.label));

/** A general report: one row per product. */
function generalReport(inputs: ReportInputs): Report {
  const headers = inputs.headers.length > 0 ? inputs.headers : generalDefaults(inputs);
  const problems: ErrorDetail[] = [];
  const columns = headers.flatMap((h, i) => {
    const c = generalColumn(h, inputs.attributes);
    if (typeof c === 'string') {
      problems.push({ field: `headers.${i}.value`, message: `'${h.value ?? h.label}' ${c}` });
      return [];
    }
    return [c];
  });
  if (problems.length > 0)
    refuse(
      problems,
      `Use product fields (${Object.keys(PRODUCT_FIELDS).join(', ')}, name.<language>, description.<language>, completeness.<language>) or attribute keys with isAttribute: true`,
    );
  return {
    header: headerOf(columns, inputs.timeZone ?? UTC),
    attributes: inputs.attributes,
    relationTypes: [],
    namesOf: (p) => [
      ...(p.brand_id ? [['brands', p.brand_id] as [NamedCollection, string]] : []),
      ...(p.family_id ? [['families', p.family_id] as [NamedCollection, string]] : []),
      ...(p.product_id ? [['products', p.product_id] as [NamedCollection, string]] : []),
      ...p.categories.map((id) => ['categories', id] as [NamedCollection, string]),
      ...p.category_trees.map((id) => ['category_trees', id] as [NamedCollection, string]),
    ],
    rows: (p, ctx) => [row(columns, p, ctx)],
  };
}

/** A per_attributes report: one row per product and attribute value (per language for a localizable text). */
function perAttributesReport(inputs: ReportInputs): Report {
  const only = new Set(inputs.attributeKeys);
  // The value column holds date-times when a date-time attribute is among those written.
  const instants = inputs.attributeKeys.some((key) => inputs.attributes.get(key)?.type === 'datetime');
  const columns = chosen(PER_ATTRIBUTE_COLUMNS, PER_ATTRIBUTE_DEFAULTS, inputs.headers).map((c, i) => ({
    ...c,
    zoned: instants && (inputs.headers[i]?.value ?? inputs.headers[i]?.label ?? PER_ATTRIBUTE_DEFAULTS[i]) === 'value',
  }));
  return {
    header: headerOf(columns, inputs.timeZone ?? UTC),
    attributes: inputs.attributes,
    relationTypes: [],
    namesOf: () => [],
    rows: (p, ctx) => {
      const values = p.attributes ?? {};
      return Object.keys(values)
        .filter((key) => only.has(key) && values[key] !== null && values[key] !== undefined)
        .sort()
        .flatMap((key) => {
          const value = values[key];
          const a = ctx.attributes.get(key);
          const items: AttributeItem[] =
            a?.localizable && typeof value === 'object' && value !== null && !Array.isArray(value)
              ? Object.keys(value)
                  .sort()
                  .map((language) => ({ product: p, key, language, value }))
              : [{ product: p, key, value }];
          return items.map((item) => row(columns, item, ctx));
        });
    },
  };
}

/** An eligibility_services report: one row per product and item of its service eligibility relations. */
function eligibilityReport(inputs: ReportInputs): Report {
  const columns = chosen(ELIGIBILITY_COLUMNS, ELIGIBILITY_DEFAULTS, inputs.headers);
  return {
    header: headerOf(columns, inputs.timeZone ?? UTC),
    attributes: inputs.attributes,
    relationTypes: [...ELIGIBILITY_TYPES],
    namesOf: () => [],
    rows: (p, ctx) =>
      ctx
        .relationsOf(p.id)
        .filter((r) => (ELIGIBILITY_TYPES as readonly string[]).includes(r.type))
        .sort(
          (a, b) =>
            ELIGIBILITY_TYPES.indexOf(a.type as EligibilityType) - ELIGIBILITY_TYPES.indexOf(b.type as EligibilityType),
        )
        .flatMap((r) => {
          const relation = r.type as EligibilityType;
          return (r[relation] ?? []).map((item) => row(columns, { product: p, relation, item }, ctx));
        }),
  };
}

/** The names an eligibility batch needs: the items (products or categories) and the categories' trees. */
export function eligibilityNames(relations: rpb.ProductRelation[]): [NamedCollection, string][] {
  return relations.flatMap((r) => {
    const relation = r.type as EligibilityType;
    const items = r[relation] ?? [];
    if (!relation.endsWith('_categories')) return items.map((i) => ['products', i.id] as [NamedCollection, string]);
    return items.flatMap((i) => [
      ['categories', i.id] as [NamedCollection, string],
      ...(i.category_tree_id ? [['category_trees', i.category_tree_id] as [NamedCollection, string]] : []),
    ]);
  });
}

/** The report of an export's type, its columns settled (a column naming nothing is a 400 naming it). */
export function buildReport(type: ExportReportType, inputs: ReportInputs): Report {
  switch (type) {
    case 'general':
      return generalReport(inputs);
    case 'per_attributes':
      return perAttributesReport(inputs);
    case 'eligibility_services':
      return eligibilityReport(inputs);
  }
}

/** The attribute key a general report's header names, or undefined for another column. */
export function headerAttributeKey(h: ExportHeader): string | undefined {
  const value = h.value ?? h.label;
  return ATTRIBUTE_FIELD.exec(h.isAttribute ? `attributes.${value}` : value)?.[1];
}

/** The attribute keys a general report's headers name (for the catalog to describe). */
export function headerAttributeKeys(headers: ExportHeader[]): string[] {
  return [...new Set(headers.flatMap((h) => headerAttributeKey(h) ?? []))];
}
