import type { EntityManager, SelectQueryBuilder } from 'typeorm';
import { ValidationError, type ErrorDetail, withLinks } from '@pim/errors';
import type { Filter } from '@pim/query';
import type { AttributeType } from '@pim/resources';
import type { ProductEntity } from './product.entity';

/** The prefix of the products' attribute filters: `attributes.color=red`. */
export const ATTRIBUTE_FILTER_PREFIX = 'attributes.';

const RANGE_TYPES: readonly AttributeType[] = ['number', 'date', 'datetime'];
const NOT_FILTERABLE: readonly AttributeType[] = ['price', 'metric'];

interface FilterAttribute {
  key: string;
  type: AttributeType;
  localizable: boolean;
}

/** One value of a filter, typed as the attribute stores it; undefined when it cannot be. */
function typed(a: FilterAttribute, raw: string): unknown {
  if (a.type === 'number') return raw.trim() !== '' && Number.isFinite(Number(raw)) ? Number(raw) : undefined;
  if (a.type === 'boolean') return raw === 'true' ? true : raw === 'false' ? false : undefined;
  return raw;
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
  const keys = [...new Set(filters.map((f) => f.field.slice(ATTRIBUTE_FILTER_PREFIX.length)))];
  const rows: { key: string; type: AttributeType; localizable: boolean | null }[] = await m.query(
    `SELECT "key", "type", ("type_config" ->> 'localizable')::boolean AS localizable FROM "attributes" WHERE "deleted" = false AND "key" = ANY($1)`,
    [keys],
  );
  const byKey = new Map(rows.map((r) => [r.key, { key: r.key, type: r.type, localizable: r.localizable === true }]));
  const problems: ErrorDetail[] = [];
  const clauses: { sql: string; params: Record<string, unknown> }[] = [];
  filters.forEach((f, i) => {
    const field = f.field;
    const a = byKey.get(field.slice(ATTRIBUTE_FILTER_PREFIX.length));
    if (!a) return void problems.push({ field, message: 'names no live attribute key' });
    const k = `af_k${i}`;
    if (f.op === 'exists') {
      if (f.values[0] !== 'true' && f.values[0] !== 'false')
        return void problems.push({ field, message: '_exists must be true or false' });
      const want = f.values[0] === 'true';
      clauses.push({ sql: `(t.attributes -> :${k}) IS ${want ? 'NOT ' : ''}NULL`, params: { [k]: a.key } });
      return;
    }
    if (NOT_FILTERABLE.includes(a.type))
      return void problems.push({ field, message: `${a.type} attributes can only be filtered with _exists` });
    const values = f.values.map((raw) => typed(a, raw));
    if (values.some((v) => v === undefined))
      return void problems.push({
        field,
        message: `must be ${a.type === 'number' ? 'a number' : 'true or false'} for a ${a.type} attribute`,
      });
    if (['gt', 'gte', 'lt', 'lte'].includes(f.op)) {
      if (!RANGE_TYPES.includes(a.type))
        return void problems.push({ field, message: `_${f.op} applies to number, date and datetime attributes only` });
      const cmp = { gt: '>', gte: '>=', lt: '<', lte: '<=' }[f.op as 'gt' | 'gte' | 'lt' | 'lte'];
      const cast = a.type === 'number' ? 'numeric' : a.type === 'date' ? 'date' : 'timestamptz';
      const v = `af_v${i}`;
      clauses.push({
        sql: `(t.attributes ->> :${k})::${cast} ${cmp} CAST(:${v} AS ${cast})`,
        params: { [k]: a.key, [v]: String(values[0]) },
      });
      return;
    }
    const one = (value: unknown, j: number) => {
      const p = `af_v${i}_${j}`;
      if (a.localizable)
        return {
          sql: `EXISTS (SELECT 1 FROM jsonb_each_text(t.attributes -> :${k}) AS e WHERE e.value = :${p})`,
          params: { [p]: value },
        };
      const contained = { [a.key]: a.type === 'multiselect' ? [value] : value };
      return { sql: `t.attributes @> CAST(:${p} AS jsonb)`, params: { [p]: JSON.stringify(contained) } };
    };
    const parts = values.map(one);
    const any = `(${parts.map((x) => x.sql).join(' OR ')})`;
    const params = Object.assign({ [k]: a.key }, ...parts.map((x) => x.params));
    clauses.push({ sql: f.op === 'ne' || f.op === 'nin' ? `NOT ${any}` : any, params });
  });
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
  for (const c of clauses) qb.andWhere(c.sql, c.params);
}
