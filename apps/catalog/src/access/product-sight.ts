import type { EntityManager } from 'typeorm';
import { AuthorizationError, ValidationError } from '@pim/errors';
import { isId } from '@pim/ids';
import { currentAccess, type ProductAccess } from '@pim/logging';
import type { ProductView } from '@pim/resources';
import { productOutOfSight, type Audience, type RecordView } from '@pim/records';
import type { ProductEntity } from '../entities/product.entity';
import type { ProductRelationEntity } from '../entities/relation.entity';
import { liveProductIdsSeen, liveProductSeen, productSeenWhere } from '../repositories/products.repository';
import { catalogsSeenBy } from '../repositories/catalogs.repository';
import { groupsHiddenFrom } from '../repositories/attribute-groups.repository';
import { attributeKeysInGroups } from '../repositories/attributes.repository';

type View = ProductView & RecordView;

/**
 * What a restricted caller sees of the products: for a caller who does not see them all, their
 * users groups and the live catalogs whose `user_groups` name one of them; and the attribute keys
 * hidden from them.
 */
export interface ProductSight {
  restricted?: { groups: string[]; catalogs: string[] };
  hidden: string[];
}

// One reading per call: the access object is the call's own, so a new request reads the groups again.
const sights = new WeakMap<ProductAccess, Promise<ProductSight>>();

/** What the current caller sees of the products, or undefined when unrestricted (docs/decisions/access.md). */
export function currentSight(m: EntityManager): Promise<ProductSight> | undefined {
  const access = currentAccess();
  if (!access) return undefined;
  let sight = sights.get(access);
  if (!sight) {
    sight = readSight(m, access);
    sights.set(access, sight);
  }
  return sight;
}

async function readSight(m: EntityManager, access: ProductAccess): Promise<ProductSight> {
  const restricted = access.all_products
    ? undefined
    : { groups: access.groups, catalogs: await catalogsSeenBy(m, access.groups) };
  const hidden = await attributeKeysInGroups(m, await groupsHiddenFrom(m, access.user_id));
  return { restricted, hidden };
}

/**
 * The jsonb patterns a product's `catalogs` must contain one of for a restricted caller to see it:
 * an entry naming one of the caller's catalogs, or an entry whose own `user_groups` name one of
 * the caller's groups.
 */
export function sightPatterns(sight: { groups: string[]; catalogs: string[] }): string[] {
  return [
    ...sight.catalogs.map((_id) => JSON.stringify([{ _id }])),
    ...sight.groups.map((g) => JSON.stringify([{ user_groups: [g] }])),
  ];
}

/** The condition on alias `t` keeping the products a restricted caller sees (no pattern: no product). */
export function inSight(sight: { groups: string[]; catalogs: string[] }): {
  sql: string;
  params: Record<string, unknown>;
} {
  const patterns = sightPatterns(sight);
  if (patterns.length === 0) return { sql: 'false', params: {} };
  return { sql: 't.catalogs @> ANY(CAST(:sight_patterns AS jsonb[]))', params: { sight_patterns: patterns } };
}

/**
 * Product relations as a restricted caller sees them: those of a product they see (the items a
 * relation lists are shown as they are; expanding one they cannot see gives null). Creating a
 * relation for a product they cannot see is refused like an unknown product.
 */
export async function relationAudience<V extends RecordView>(
  m: EntityManager,
): Promise<Audience<ProductRelationEntity, V> | undefined> {
  const sight = await currentSight(m);
  if (!sight?.restricted) return undefined;
  const patterns = sightPatterns(sight.restricted);
  return {
    where:
      patterns.length === 0
        ? { sql: 'false', params: {} }
        : { sql: productSeenWhere('t.product_id', 'sight_patterns'), params: { sight_patterns: patterns } },
    outOfSight: (r) => productOutOfSight(r.product_id),
  };
}

/**
 * Refuses a restricted caller's relation write for a product they cannot see, or that does not
 * exist, with one 404 before any other check answers: the record engine's own check runs after the write's rules, so a rule's answer (a 409
 * for a relation the product already has) would otherwise tell the caller about that product.
 */
export async function refuseRelationOutOfSight(m: EntityManager, productId: string): Promise<void> {
  const sight = await currentSight(m);
  if (!sight?.restricted) return;
  // A product that does not exist answers the same 404: a 400 "unknown product" for it would tell a
  // restricted caller which of the ids they cannot see do exist.
  if ((await liveProductSeen(m, productId, sightPatterns(sight.restricted))) !== true)
    throw productOutOfSight(productId);
}

/** What a restricted caller's relation write may say of its product items: those kept unseen, and those refused as unknown. */
export interface ItemsSight {
  /** Items naming products out of the caller's sight that the relation already held: kept as stored, never checked again. */
  kept: Set<string>;
  /** Items naming products out of the caller's sight (or no live product) that the relation did not hold: unknown products. */
  unseen: Set<string>;
}

/**
 * A restricted caller's write of a relation's product items (docs/decisions/access.md): the items
 * the relation held that name products out of their sight are kept — left out of a replace, they
 * are added back; sent again, they stay — since the caller cannot see them, leaving them out is no
 * removal; any other item naming a product out of their sight is an unknown product, as an id
 * that names none, so no check on it (its type: kit or service) answers before. Unrestricted
 * callers: nothing kept, nothing unseen.
 */
export async function relationItemsInSight(
  m: EntityManager,
  next: { product_id: string; type: string; items: { id: string }[] },
  prev: { product_id: string; type: string; items: { id: string }[] } | null,
): Promise<ItemsSight> {
  const sight = await currentSight(m);
  const none: ItemsSight = { kept: new Set(), unseen: new Set() };
  if (!sight?.restricted) return none;
  const held = prev && prev.product_id === next.product_id && prev.type === next.type ? prev.items : [];
  const ids = [...new Set([...next.items, ...held].map((i) => i.id))];
  const seen = new Set(await liveProductIdsSeen(m, ids, sightPatterns(sight.restricted)));
  const heldIds = new Set(held.map((i) => i.id));
  const named = new Set(next.items.map((i) => i.id));
  const keptItems = held.filter((i) => !seen.has(i.id) && !named.has(i.id));
  next.items = [...next.items, ...keptItems];
  return {
    kept: new Set(ids.filter((id) => !seen.has(id) && heldIds.has(id))),
    unseen: new Set(ids.filter((id) => !seen.has(id) && !heldIds.has(id))),
  };
}

/** Most product ids one FilterVisibleProducts call may ask about. */
export const VISIBLE_PRODUCTS_MAX = 10_000;

/**
 * The ids among `ids` that name live products the current caller sees, in id order: what another
 * app asks before showing records that belong to products (product approvals, publications).
 */
export async function visibleProductIds(m: EntityManager, ids: string[]): Promise<string[]> {
  if (ids.length > VISIBLE_PRODUCTS_MAX)
    throw new ValidationError(
      `At most ${VISIBLE_PRODUCTS_MAX} product ids can be asked about at once, got ${ids.length}`,
      {
        title: 'Too many ids',
        solution: `Split the request into batches of at most ${VISIBLE_PRODUCTS_MAX}`,
      },
    );
  const sight = await currentSight(m);
  // A malformed id names no product.
  const wanted = [...new Set(ids)].filter(isId);
  return liveProductIdsSeen(m, wanted, sight?.restricted ? sightPatterns(sight.restricted) : undefined);
}

/** Whether a restricted caller sees a product with these `catalogs` entries: the same rule as `inSight`, in memory. */
export function seesCatalogs(
  sight: { groups: string[]; catalogs: string[] },
  catalogs: readonly { _id: string; user_groups?: readonly string[] }[],
): boolean {
  return catalogs.some(
    (c) => sight.catalogs.includes(c._id) || (c.user_groups ?? []).some((g) => sight.groups.includes(g)),
  );
}

/** How a query names an attribute's values: `attributes.<key>`. */
const ATTRIBUTE_FIELD = 'attributes.';

const SNAPSHOTS = ['attributes', 'attributes_schema_snapshot', 'attributes_options_snapshot'] as const;

/** A product view without the hidden attributes' values and snapshots. */
export function withoutHidden<T extends Partial<Pick<View, (typeof SNAPSHOTS)[number]>>>(view: T, hidden: string[]): T {
  if (hidden.length === 0) return view;
  const out = { ...view };
  for (const field of SNAPSHOTS) {
    const values = view[field];
    if (values === undefined || values === null) continue;
    out[field] = Object.fromEntries(Object.entries(values).filter(([k]) => !hidden.includes(k))) as T[typeof field];
  }
  return out;
}

/** The products' audience: the caller's catalogs in SQL, hidden attributes left out of what they are shown. */
export async function productAudience(m: EntityManager): Promise<Audience<ProductEntity, View> | undefined> {
  const sight = await currentSight(m);
  if (!sight) return undefined;
  return {
    ...(sight.restricted ? { where: inSight(sight.restricted) } : {}),
    outOfSight: (p) => outOfSight(p.code),
    ...(sight.hidden.length > 0
      ? {
          shown: (view: View) => withoutHidden(view, sight.hidden),
          refuseNamed: (fields: readonly string[]) => hiddenQueried(sight, fields),
        }
      : {}),
  };
}

/** The attribute key a query field names (`attributes.cost` → `cost`), or undefined for another field. */
const attributeKeyOf = (field: string): string | undefined =>
  field.startsWith(ATTRIBUTE_FIELD) ? field.slice(ATTRIBUTE_FIELD.length) : undefined;

/**
 * The 403 of a query — a filter, a sort, an export's columns — naming attributes hidden from the
 * caller, or undefined when it names none. Such a query is never run: which products match
 * `attributes.<key>=v`, `_exists` or a range would tell the values the caller is not shown (a
 * binary search on `_gte` with `_id` reads a number in a few requests).
 */
export function hiddenQueried(sight: ProductSight, fields: readonly string[]): AuthorizationError | undefined {
  if (sight.hidden.length === 0) return undefined;
  const named = [...new Set(fields)].filter((f) => {
    const key = attributeKeyOf(f);
    return key !== undefined && sight.hidden.includes(key);
  });
  if (named.length === 0) return undefined;
  const keys = [...new Set(named.map((f) => attributeKeyOf(f)!))];
  return new AuthorizationError(`You may not query the attributes ${keys.map((k) => `'${k}'`).join(', ')}`, {
    title: 'Attributes not allowed',
    solution:
      'Leave these attributes out of the filters and columns: an attribute group holding them lists your user among its not_allowed_users',
    details: named.map((field) => ({ field, message: 'is hidden from your user' })),
  });
}

/** The refusal of a write that would leave a product in no catalog the caller sees. */
export function outOfSight(code: string): AuthorizationError {
  return new AuthorizationError(`Product '${code}' would be in no catalog you can see`, {
    title: 'Product out of your catalogs',
    solution:
      "Keep the product in at least one catalog your users groups can see (the catalog's user_groups, or the entry's own user_groups in the product's catalogs, naming one of your groups)",
    details: [{ field: 'catalogs', message: 'must include a catalog your users groups can see' }],
  });
}

/** Refuses a write that names attributes hidden from the caller (403 naming them); `attributes` as given. */
export async function refuseHiddenAttributes(m: EntityManager, attributes: unknown): Promise<void> {
  const sight = await currentSight(m);
  const refused = sight ? hiddenNamed(sight, attributes) : undefined;
  if (refused) throw refused;
}

/** The 403 of a write naming attributes hidden from the caller, or undefined when it names none. */
export function hiddenNamed(sight: ProductSight, attributes: unknown): AuthorizationError | undefined {
  if (attributes === null || typeof attributes !== 'object' || sight.hidden.length === 0) return undefined;
  const named = Object.keys(attributes).filter((k) => sight.hidden.includes(k));
  if (named.length === 0) return undefined;
  return new AuthorizationError(`You may not write the attributes ${named.map((k) => `'${k}'`).join(', ')}`, {
    title: 'Attributes not allowed',
    solution:
      'Leave these attributes out of the write: an attribute group holding them lists your user among its not_allowed_users',
    details: named.map((k) => ({ field: `attributes.${k}`, message: 'is hidden from your user' })),
  });
}

/** Keeps on a product being written the stored values of the attributes hidden from the caller, which they neither see nor send. */
export async function keepHiddenValues(
  m: EntityManager,
  next: ProductEntity,
  prev: ProductEntity | null,
): Promise<void> {
  const sight = await currentSight(m);
  if (sight) keepHidden(sight, next, prev);
}

/** `keepHiddenValues` with the caller's sight at hand. */
export function keepHidden(sight: ProductSight, next: ProductEntity, prev: ProductEntity | null | undefined): void {
  if (!prev || sight.hidden.length === 0) return;
  const kept = Object.entries(prev.attributes ?? {}).filter(([k]) => sight.hidden.includes(k));
  if (kept.length > 0) next.attributes = { ...next.attributes, ...Object.fromEntries(kept) };
}
