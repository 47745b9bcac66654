import { ValidationError, type ErrorDetail } from '@pim/errors';
import {
  COLUMN_PATTERN,
  IMPORT_TARGET_PATTERN,
  importRowShape,
  targetRowShape,
  type ImportHeader,
  type ImportRowShape,
} from '@pim/resources';
import { headerTimeZone } from '@pim/sheets';
import type { ImportAttribute } from '../links/catalog.link';

/** Column letter → product field. */
export type Mapping = Record<string, string>;

/** The attribute key a target names (`attributes.color.pt` → `color`), or undefined. */
export const attributeKeyOf = (target: string): string | undefined =>
  target.startsWith('attributes.') ? target.split('.')[1] : undefined;

/** Keys of the attributes a mapping names. */
export const mappedAttributeKeys = (mapping: Mapping): string[] => [
  ...new Set(Object.values(mapping).flatMap((t) => attributeKeyOf(t) ?? [])),
];

const norm = (label: string) => label.trim().toLowerCase();

/**
 * A template's mapping (header label → field) for a sheet's headers (column → label): each
 * header takes the field of the template's label that matches it ignoring case and surrounding
 * spaces; labels the sheet lacks are left out. A column with an empty header cell has no label to
 * match: it is mapped by its letter only.
 */
export function mappingFromTemplate(byLabel: Record<string, string>, headers: ImportHeader[]): Mapping {
  const fields = new Map(Object.entries(byLabel).map(([label, field]) => [norm(label), field]));
  return Object.fromEntries(
    headers.flatMap((h) =>
      norm(h.label) !== '' && fields.has(norm(h.label)) ? [[h.column, fields.get(norm(h.label))!]] : [],
    ),
  );
}

/**
 * The mapping a file of the platform's own exports carries in its header row: each header that
 * names a field an import fills or reads past (`code`, `name.pt-BR`, `attributes.color`, `_id`;
 * a date-time column's zone suffix, `updated_at (UTC)`, aside) mapped to that field. Empty unless
 * one header names `code`: a merchant's own headers are mapped by the merchant.
 */
export function ownHeadersMapping(headers: ImportHeader[]): Mapping {
  const mapping: Mapping = {};
  const taken = new Set<string>();
  for (const h of headers) {
    const target = (headerTimeZone(h.label)?.label ?? h.label).trim();
    if (!IMPORT_TARGET_PATTERN.test(target) || taken.has(target)) continue;
    taken.add(target);
    mapping[h.column] = target;
  }
  return taken.has('code') ? mapping : {};
}

/** What a row of each shape stands for, for people. */
const SHAPE_WORDS: Record<ImportRowShape, string> = {
  product_rows: 'product rows (one row per product)',
  attribute_rows: 'attribute rows (one row per product and attribute value)',
  eligibility_rows: 'eligibility rows (one row per product and service eligibility item)',
};

/** The targets that make a mapping read rows of a shape, and what is missing of them. */
function shapeNeeds(shape: ImportRowShape, mapped: Map<string, string>): { needs: string; missing: string[] } {
  if (shape === 'attribute_rows')
    return {
      needs: 'columns mapped to attribute_key and value',
      missing: ['attribute_key', 'value'].filter((t) => !mapped.has(t)),
    };
  if (shape === 'eligibility_rows')
    return {
      needs: 'a column mapped to relation and one to item_code or item_id',
      missing: [
        ...(mapped.has('relation') ? [] : ['relation']),
        ...(mapped.has('item_code') || mapped.has('item_id') ? [] : ['item_code or item_id']),
      ],
    };
  return { needs: 'no column of attribute rows or eligibility rows', missing: [] };
}

/**
 * A mapping reads rows of one shape (`importRowShape`): each column whose target belongs to
 * another is a problem — a column of attribute or eligibility rows without the columns that make
 * the shape (`language` without `attribute_key` and `value`), or a column of another shape beside
 * them (`name.en` in attribute rows). Never read in part: a column left unread would drop the
 * merchant's data without a word.
 */
function shapeProblems(mapped: Map<string, string>): ErrorDetail[] {
  const shape = importRowShape(mapped.keys());
  const deciding =
    shape === 'attribute_rows'
      ? ['attribute_key', 'value']
      : shape === 'eligibility_rows'
        ? ['relation', mapped.has('item_code') ? 'item_code' : 'item_id']
        : [];
  const problems: ErrorDetail[] = [];
  for (const [target, column] of mapped) {
    const own = targetRowShape(target);
    if (own === undefined || own === shape) continue;
    const field = `mapped_headers.${column}`;
    if (shape === 'product_rows') {
      const { needs, missing } = shapeNeeds(own, mapped);
      problems.push({
        field,
        message: `'${target}' is a column of ${SHAPE_WORDS[own]}, which need ${needs} (no column is mapped to ${missing.join(' nor to ')})`,
      });
    } else {
      const columns = deciding.map((t) => mapped.get(t)).join(' and ');
      problems.push({
        field,
        message: `'${target}' is a column of ${SHAPE_WORDS[own]}, but columns ${columns} (${deciding.join(' and ')}) make this file ${SHAPE_WORDS[shape]}: a file holds rows of one kind, so leave this column out`,
      });
    }
  }
  return problems;
}

/**
 * Every problem of a mapping against the sheet's headers and the catalog's attributes: a column
 * the header row does not have, a field an import cannot fill, an unknown attribute (or a
 * language on one that is not localizable), a field filled from two columns, columns of two row
 * shapes or of a shape without the columns that make it (`shapeProblems`), no column for code.
 * A column whose header cell is empty is one of the header row's when the sheet lists it (with an
 * empty label: data below it, left of the last header), and is mapped like any other.
 */
export function mappingProblems(
  mapping: Mapping,
  headers: ImportHeader[],
  attributes: ImportAttribute[],
): ErrorDetail[] {
  const columns = new Set(headers.map((h) => h.column));
  const byKey = new Map(attributes.map((a) => [a.key, a]));
  const problems: ErrorDetail[] = [];
  const seen = new Map<string, string>();
  for (const [column, target] of Object.entries(mapping)) {
    const field = `mapped_headers.${column}`;
    if (!COLUMN_PATTERN.test(column) || !columns.has(column)) {
      problems.push({
        field,
        message: `is not a column of the header row (columns: ${[...columns].slice(0, 5).join(', ')}${columns.size > 5 ? ', …' : ''})`,
      });
      continue;
    }
    if (typeof target !== 'string' || !IMPORT_TARGET_PATTERN.test(target)) {
      problems.push({ field, message: `'${String(target)}' is not a product field an import can fill` });
      continue;
    }
    const key = attributeKeyOf(target);
    if (key !== undefined) {
      const attribute = byKey.get(key);
      const language = target.split('.')[2];
      if (!attribute) problems.push({ field, message: `no live attribute has the key '${key}'` });
      else if (language !== undefined && !attribute.localizable)
        problems.push({ field, message: `attribute '${key}' is not localizable: map it as attributes.${key}` });
      else if (language === undefined && attribute.localizable)
        problems.push({
          field,
          message: `attribute '${key}' is localizable: map it per language, as attributes.${key}.pt-BR`,
        });
    }
    const earlier = seen.get(target);
    if (earlier !== undefined)
      problems.push({ field, message: `'${target}' is already filled from column ${earlier}` });
    else seen.set(target, column);
  }
  problems.push(...shapeProblems(seen));
  if (Object.keys(mapping).length > 0 && !seen.has('code'))
    problems.push({ field: 'mapped_headers', message: 'no column is mapped to code (products are matched by code)' });
  return problems;
}

/** Refuses a mapping with problems, naming each. */
export function checkMapping(mapping: Mapping, headers: ImportHeader[], attributes: ImportAttribute[]): void {
  const problems = mappingProblems(mapping, headers, attributes);
  if (problems.length === 0) return;
  throw new ValidationError(`The column mapping has ${problems.length} problem(s)`, {
    title: 'Invalid mapping',
    solution:
      "Map columns of the header row (by letter), each field from one column, one of them to code, and the fields of one kind of row: product rows (name.<language>, description.<language>, type, brand, family, categories, tags, enabled, image, images, attributes.<key>), attribute rows (attribute_key, value and, for localizable texts, language) or eligibility rows (relation, item_code or item_id, category_tree, eligible, item_type). Columns of the platform's own exports it fills, such as _id, created_at or product_name, may be mapped to themselves: they are read past",
    details: problems,
  });
}
