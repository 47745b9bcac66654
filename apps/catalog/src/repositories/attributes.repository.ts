import type { EntityManager } from 'typeorm';
import type { AttributeAssociation, AttributeType, TypeConfig } from '@pim/resources';
import { AttributeEntity, type AttributeLink } from '../entities/attribute.entity';

// Every query over `attributes` besides the record engine's own.

/** What the product rules and the completeness recompute read of an attribute. */
export interface AttributeDef {
  _id: string;
  key: string;
  name: Record<string, string>;
  type: AttributeType;
  type_config: TypeConfig;
  unique: boolean;
  required: boolean;
  association: AttributeAssociation;
  groups: AttributeLink[];
  categories: AttributeLink[];
}

/** Which attributes may apply: linked to one of the groups or categories, or named by id or by key. */
export interface AttributeReach {
  groups: string[];
  categories: string[];
  ids: string[];
  keys?: string[];
}

/** The live attributes that may apply to products (see AttributeReach), in one query; no locks. */
export function attributeDefs(m: EntityManager, reach: AttributeReach): Promise<AttributeDef[]> {
  return m.query(
    `SELECT "_id", "key", "name", "type", "type_config", "unique", "required", "association", "groups", "categories" FROM "attributes"
      WHERE "deleted" = false AND ("group_ids" && $1::text[] OR "category_ids" && $2::text[] OR "_id" = ANY($3) OR "key" = ANY($4))`,
    [reach.groups, reach.categories, reach.ids, reach.keys ?? []],
  );
}

/** What a product filter needs of an attribute: its type and whether it holds one text per language. */
export interface FilterAttribute {
  key: string;
  type: AttributeType;
  localizable: boolean;
}

/** The live attributes with these keys, by key. */
export async function attributesByKeys(m: EntityManager, keys: string[]): Promise<Map<string, FilterAttribute>> {
  const rows: { key: string; type: AttributeType; localizable: boolean | null }[] = await m.query(
    `SELECT "key", "type", ("type_config" ->> 'localizable')::boolean AS localizable FROM "attributes" WHERE "deleted" = false AND "key" = ANY($1)`,
    [keys],
  );
  return new Map(rows.map((r) => [r.key, { key: r.key, type: r.type, localizable: r.localizable === true }]));
}

/** The keys of the live localizable text and textarea attributes: products hold their values as language → text. */
export async function localizableTextKeys(m: EntityManager): Promise<string[]> {
  const rows: { key: string }[] = await m.query(
    `SELECT "key" FROM "attributes" WHERE "deleted" = false AND "type" IN ('text', 'textarea') AND "type_config" -> 'localizable' = 'true'::jsonb`,
  );
  return rows.map((r) => r.key);
}

/** A live attribute's id, key and type; with `lock`, share-locked until the transaction ends. */
export function liveAttribute(m: EntityManager, id: string, lock = false): Promise<AttributeEntity | null> {
  return m.findOne(AttributeEntity, {
    select: { _id: true, key: true, type: true },
    where: { _id: id, deleted: false },
    ...(lock ? { lock: { mode: 'pessimistic_read' as const } } : {}),
  });
}

/** How many live attributes belong to a group. */
export function attributesInGroup(m: EntityManager, groupId: string): Promise<number> {
  return m
    .createQueryBuilder(AttributeEntity, 'a')
    .where('a.deleted = false')
    .andWhere('a.group_ids @> ARRAY[:id]::text[]', { id: groupId })
    .getCount();
}

/** How many live attributes are linked to a category. */
export function attributesInCategory(m: EntityManager, categoryId: string): Promise<number> {
  return m
    .createQueryBuilder(AttributeEntity, 'a')
    .where('a.deleted = false')
    .andWhere('a.category_ids @> ARRAY[:id]::text[]', { id: categoryId })
    .getCount();
}

/** The keys of the live attributes linked to one of the groups (GIN over `group_ids`), sorted. */
export async function attributeKeysInGroups(m: EntityManager, groupIds: string[]): Promise<string[]> {
  if (groupIds.length === 0) return [];
  const rows: { key: string }[] = await m.query(
    `SELECT "key" FROM "attributes" WHERE "deleted" = false AND "group_ids" && $1::text[] ORDER BY "key"`,
    [groupIds],
  );
  return rows.map((r) => r.key);
}
