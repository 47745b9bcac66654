import type { EntityManager } from 'typeorm';
import { FamilyEntity, type FamilyAttributeRef } from '../entities/family.entity';

// Every query over `families` besides the record engine's own.

/** What the product rules and the completeness recompute read of a family. */
export interface FamilyDef {
  attribute_groups: string[];
  attributes: FamilyAttributeRef[];
}

/**
 * The live families among `ids`, by id. With `lock` they are share-locked (in id order) until
 * the transaction ends, so none is deleted under a write that names it.
 */
export async function familyDefs(
  m: EntityManager,
  ids: string[],
  { lock }: { lock: boolean },
): Promise<Map<string, FamilyDef>> {
  if (ids.length === 0) return new Map();
  const rows: ({ _id: string } & FamilyDef)[] = await m.query(
    `SELECT "_id", "attribute_groups", "attributes" FROM "families" WHERE "_id" = ANY($1) AND "deleted" = false ORDER BY "_id"${lock ? ' FOR SHARE' : ''}`,
    [ids],
  );
  return new Map(rows.map((f) => [f._id, { attribute_groups: f.attribute_groups, attributes: f.attributes }]));
}

/** How many live families hold an attribute group. */
export function familiesWithGroup(m: EntityManager, groupId: string): Promise<number> {
  return m
    .createQueryBuilder(FamilyEntity, 'f')
    .where('f.deleted = false')
    .andWhere('f.attribute_groups @> ARRAY[:id]::text[]', { id: groupId })
    .getCount();
}

/** How many live families name an attribute. */
export function familiesWithAttribute(m: EntityManager, attributeId: string): Promise<number> {
  return m
    .createQueryBuilder(FamilyEntity, 'f')
    .where('f.deleted = false')
    .andWhere(`f.attributes @> jsonb_build_array(jsonb_build_object('_id', CAST(:id AS text)))`, { id: attributeId })
    .getCount();
}

/** The live families named, holding one of the groups, or naming one of the attributes, by `_id`. */
export async function familiesReaching(
  m: EntityManager,
  reach: { family_ids: string[]; group_ids: string[]; attribute_ids: string[] },
): Promise<string[]> {
  if (reach.family_ids.length + reach.group_ids.length + reach.attribute_ids.length === 0) return [];
  const rows: { _id: string }[] = await m.query(
    `SELECT f."_id" FROM "families" f WHERE f."deleted" = false AND (f."_id" = ANY($1) OR f."attribute_groups" && $2::text[]
        OR EXISTS (SELECT 1 FROM jsonb_array_elements(f."attributes") e WHERE e->>'_id' = ANY($3::text[])))
      ORDER BY f."_id"`,
    [reach.family_ids, reach.group_ids, reach.attribute_ids],
  );
  return rows.map((r) => r._id);
}
