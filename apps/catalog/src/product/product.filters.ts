import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import { ValidationError, type ErrorDetail, withLinks } from '@pim/errors';
import { isId } from '@pim/ids';
import { filterKey, readNestedFilter, type Filter } from '@pim/query';
import { CATALOG_ID_FILTER, type AttributeType } from '@pim/resources';
import type { ProductEntity } from '../entities/product.entity';
import { attributesByKeys, type FilterAttribute } from '../repositories/attributes.repository';
import { liveCatalogIds } from '../repositories/catalogs.repository';
import {
  whereAttributes,
  whereCatalogs,
  type AttributeClause,
  type CatalogClause,
} from '../repositories/products.repository';

/** The prefix of the products' attribute filters: `attributes.color=red`. */
export const ATTRIBUTE_FILTER_PREFIX = 'attributes.';

const RANGE_TYPES: readonly AttributeType[] = ['number', 'date', 'datetime'];
const NOT_FILTERABLE: readonly AttributeType[] = ['price', 'metric'];

/** One value of a filter, typed as the attribute stores it; undefined when it cannot be. */
function typed(a: FilterAttribute, raw: string): unknown {
  if (a.type === 'number') return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : undefined;
  if (a.type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : undefined;
  return raw;
}

/**
 * Reads `attributes.<…>` filters passed on as written: a parameter whose whole key names a live
 * attribute the caller sees is equality on it (`attributes.origin_in=BR` on an attribute
 * `origin_in`); any other is read as every filter is, its last `_<operator>` the operator
 * (`attributes.origin_in=BR,AR` on `origin`; `attributes.origin_in_eq=BR` says equality on
 * `origin_in` whatever exists). Attributes hidden from the caller are never matched whole, so the
 * reading tells nothing of them.
 */
export async function resolveAttributeFilters(
  m: EntityManager,
  filters: Filter[],
  hidden: (field: string) => boolean,
): Promise<Filter[]> {
  const written = filters.filter((f) => f.op === 'eq' && f.values.length === 1);
  const keys = written.map((f) => f.field.slice(ATTRIBUTE_FILTER_PREFIX.length));
  const live = keys.length > 0 ? await attributesByKeys(m, [...new Set(keys)]) : new Map();
  return filters.map((f) => {
    const whole = f.op === 'eq' && live.has(f.field.slice(ATTRIBUTE_FILTER_PREFIX.length)) && !hidden(f.field);
    return whole ? f : readNestedFilter(f, ATTRIBUTE_FILTER_PREFIX);
  });
}

/**
 * Applies `attributes.<key>` filters, typed by the attribute: `=`, `_ne`, `_in`, `_nin` by
 * containment (a multiselect matches when it contains the value, a localizable text when any
 * language equals it) — GIN-served on `attributes`; `_exists`; `_gt/_gte/_lt/_lte` on number,
 * date and datetime attributes. An unknown key, a value of the wrong type or an operator the type
 * does not take is a 400 naming the filter.
 */
export async function applyAttributeFilters(
  m: EntityManager,
  qb: SelectQueryBuilder<ProductEntity>,
  filters: Filter[],
): Promise<void> {
  const byKey = await attributesByKeys(m, [
    ...new Set(filters.map((f) => f.field.slice(ATTRIBUTE_FILTER_PREFIX.length))),
  ]);
  const problems: ErrorDetail[] = [];
  const clauses: AttributeClause[] = [];
  for (const f of filters) {
    const field = f.field;
    const a = byKey.get(field.slice(ATTRIBUTE_FILTER_PREFIX.length));
    if (!a) {
      problems.push({ field, message: 'names no live attribute key' });
      continue;
    }
    if (f.op === 'exists') {
      if (f.values[0] !== 'true' && f.values[0] !== 'false')
        problems.push({ field, message: '_exists must be true or false' });
      else clauses.push({ kind: 'exists', key: a.key, present: f.values[0] === 'true' });
      continue;
    }
    if (NOT_FILTERABLE.includes(a.type)) {
      problems.push({ field, message: `${a.type} attributes can only be filtered with _exists` });
      continue;
    }
    const values = f.values.map((raw) => typed(a, raw));
    if (values.some((v) => v === undefined)) {
      problems.push({
        field,
        message: `must be ${a.type === 'number' ? 'a number' : 'true or false'} for a ${a.type} attribute`,
      });
      continue;
    }
    if (f.op === 'gt' || f.op === 'gte' || f.op === 'lt' || f.op === 'lte') {
      if (!RANGE_TYPES.includes(a.type))
        problems.push({ field, message: `_${f.op} applies to number, date and datetime attributes only` });
      else {
        const cast = a.type === 'number' ? 'numeric' : a.type === 'date' ? 'date' : 'timestamptz';
        clauses.push({ kind: 'range', key: a.key, op: f.op, cast, value: String(values[0]) });
      }
      continue;
    }
    clauses.push({
      kind: 'match',
      key: a.key,
      values,
      localizable: a.localizable,
      multiselect: a.type === 'multiselect',
      negate: f.op === 'ne' || f.op === 'nin',
    });
  }
  if (problems.length > 0) {
    throw new ValidationError(problems.map((p) => `${p.field} ${p.message}`).join('; '), {
      title: 'Invalid attribute filter',
      ...withLinks(
        (link) =>
          `Filter on the key of a live attribute (${link({ collection: 'attributes' })}) with a value of its type`,
      ),
      details: problems,
    });
  }
  whereAttributes(qb, clauses);
}

/** One catalog filter's clause, or the problem with its operator or values. */
function catalogClause(f: Filter): CatalogClause | string {
  if (f.op === 'exists') {
    if (f.values.length !== 1 || (f.values[0] !== 'true' && f.values[0] !== 'false'))
      return '_exists must be true or false';
    return { kind: 'exists', present: f.values[0] === 'true' };
  }
  if (f.op !== 'eq' && f.op !== 'ne' && f.op !== 'in' && f.op !== 'nin')
    return `takes ${CATALOG_ID_FILTER}=, _ne, _in, _nin or _exists, not _${f.op}`;
  const several = f.op === 'in' || f.op === 'nin';
  if (several ? f.values.length === 0 : f.values.length !== 1)
    return several ? 'needs at least one catalog _id' : 'takes exactly one catalog _id';
  const bad = f.values.find((v): boolean => !isId(v));
  if (bad !== undefined) return `'${bad.slice(0, 60)}' is not an _id (24 lowercase hexadecimal characters)`;
  return { kind: 'member', ids: f.values, negate: f.op === 'ne' || f.op === 'nin' };
}

/**
 * Applies `catalog_id` filters: `=` and `_in` keep the products whose `catalogs` hold an entry
 * with (one of) the ids, `_ne` and `_nin` those holding none of them (jsonb containment),
 * `_exists` those in some catalog (true) or in none (false). A malformed id, an id of no live
 * catalog or another operator is a 400 naming the filter.
 */
export async function applyCatalogFilters(
  m: EntityManager,
  qb: SelectQueryBuilder<ProductEntity>,
  filters: Filter[],
): Promise<void> {
  const problems: ErrorDetail[] = [];
  const checked: { key: string; clause: CatalogClause }[] = [];
  for (const f of filters) {
    const c = f.field === CATALOG_ID_FILTER ? catalogClause(f) : `is not a filter (use ${CATALOG_ID_FILTER})`;
    if (typeof c === 'string') problems.push({ field: filterKey(f), message: c });
    else checked.push({ key: filterKey(f), clause: c });
  }
  const clauses = checked.map(({ clause }) => clause);
  const idsOf = (c: CatalogClause) => (c.kind === 'member' ? c.ids : []);
  const live = await liveCatalogIds(m, clauses.flatMap(idsOf));
  for (const { key, clause } of checked) {
    const unknown = [...new Set(idsOf(clause).filter((id) => !live.has(id)))];
    if (unknown.length === 0) continue;
    const more = unknown.length > 10 ? ` and ${unknown.length - 10} more` : '';
    problems.push({ field: key, message: `names no live catalog: ${unknown.slice(0, 10).join(', ')}${more}` });
  }
  if (problems.length > 0) {
    throw new ValidationError(problems.map((p) => `${p.field} ${p.message}`).join('; '), {
      title: 'Invalid catalog filter',
      ...withLinks((link) => `Filter on the _id of a live catalog (${link({ collection: 'catalogs' })})`),
      details: problems,
    });
  }
  whereCatalogs(qb, clauses);
}
