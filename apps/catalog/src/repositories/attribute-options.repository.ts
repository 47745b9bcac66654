import type { EntityManager } from 'typeorm';
import { AttributeOptionEntity } from '../entities/attribute-option.entity';

// Every query over `attribute_options` besides the record engine's own.

/** The live option values of each attribute (ordered by sequence, then value), in one query. */
export async function optionValues(m: EntityManager, attributeIds: string[]): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>(attributeIds.map((id) => [id, []]));
  if (attributeIds.length === 0) return out;
  const rows = await m
    .createQueryBuilder(AttributeOptionEntity, 'o')
    .select(['o.attribute_id', 'o.value'])
    .where('o.deleted = false')
    .andWhere('o.attribute_id = ANY(:ids)', { ids: [...new Set(attributeIds)] })
    .orderBy('o.attribute_id')
    .addOrderBy('o.sequence')
    .addOrderBy('o.value')
    .getMany();
  for (const row of rows) out.get(row.attribute_id)?.push(row.value);
  return out;
}

/** The live option values (→ label) of each attribute, in one query. */
export async function optionLabels(
  m: EntityManager,
  attributeIds: string[],
): Promise<Map<string, Map<string, Record<string, string>>>> {
  const out = new Map<string, Map<string, Record<string, string>>>(attributeIds.map((id) => [id, new Map()]));
  if (attributeIds.length === 0) return out;
  const rows: { attribute_id: string; value: string; label: Record<string, string> }[] = await m.query(
    `SELECT "attribute_id", "value", "label" FROM "attribute_options" WHERE "deleted" = false AND "attribute_id" = ANY($1)`,
    [attributeIds],
  );
  for (const r of rows) out.get(r.attribute_id)?.set(r.value, r.label);
  return out;
}
