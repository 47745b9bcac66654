import type { ErrorDetail } from '@pim/errors';
import { validateAttributeValue } from './product.values';
import { storedValue, uniqueKey, type ProductDraft, type ProductWorld } from './product.world';
import { applicable, completenessOf, filled, fitsType, requiredAttributes } from './product.completeness';

/** What a product's write derives from its values: the snapshots and its completeness. */
export interface ProductDerived {
  attributes: Record<string, unknown>;
  attributes_schema_snapshot: Record<string, unknown>;
  attributes_options_snapshot: Record<string, unknown>;
  completeness: Record<string, number>;
  completeness_min: number;
}

/** The outcome of checking one product: every problem at once, or what to store. */
/** A problem of a product; `taken`: a unique value another product holds (a clash, not a mistake of form). */
export type ProductProblem = ErrorDetail & { taken?: true };

export type ProductCheck = { ok: true; derived: ProductDerived } | { ok: false; problems: ProductProblem[] };

/** Unique values claimed by earlier items of the same batch: value key → the claiming code. */
export type BatchClaims = Map<string, string>;

function referenceProblems(p: ProductDraft, w: ProductWorld, keptParent: string | null): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const missing = (field: string, label: string, id: string) =>
    problems.push({ field, message: `no live ${label} has _id '${id}'` });
  if (p.family_id !== null && !w.families.has(p.family_id)) missing('family_id', 'family', p.family_id);
  if (p.brand_id !== null && !w.live.brands.has(p.brand_id)) missing('brand_id', 'brand', p.brand_id);
  p.categories.forEach((id, i) => w.live.categories.has(id) || missing(`categories.${i}`, 'category', id));
  p.category_trees.forEach(
    (id, i) => w.live.category_trees.has(id) || missing(`category_trees.${i}`, 'category tree', id),
  );
  p.catalogs.forEach((c, i) => w.live.catalogs.has(c._id) || missing(`catalogs.${i}._id`, 'catalog', c._id));
  p.attribute_groups.forEach(
    (id, i) => w.live.attribute_groups.has(id) || missing(`attribute_groups.${i}`, 'attribute group', id),
  );
  if (p.product_id !== null) {
    const parent = w.parents.get(p.product_id);
    if (p.product_id === p._id)
      problems.push({ field: 'product_id', message: 'must name another product, not the product itself' });
    // A parent the caller does not see, named anew, is answered as no product: its existence does not leak.
    else if (parent === undefined || (w.unseenParents.has(p.product_id) && p.product_id !== keptParent))
      missing('product_id', 'product', p.product_id);
    else if (p.type === 'variation' && parent === 'variation')
      problems.push({
        field: 'product_id',
        message: `names a variation; a variation's parent must not be a variation`,
      });
  } else if (p.type === 'variation') {
    problems.push({ field: 'product_id', message: 'is required for a variation: the _id of its parent product' });
  }
  return problems;
}

/**
 * Checks one product against its world: references, variation parent, and every attribute
 * value (known, applicable, association vs type, type and type_config, options, unique,
 * required). Pure: a bulk write checks its whole batch in memory. `claims` carries the unique
 * values of earlier items of the batch; this product's are added when it passes. `keptParent`:
 * the parent the stored product already names, which it keeps even out of the caller's sight.
 */
export function checkProduct(
  p: ProductDraft,
  w: ProductWorld,
  claims: BatchClaims = new Map(),
  keptParent: string | null = null,
): ProductCheck {
  const problems: ProductProblem[] = referenceProblems(p, w, keptParent);
  const variation = p.type === 'variation';
  const apply = applicable(p, w);
  const attributes = Object.fromEntries(Object.entries(p.attributes).filter(([, v]) => v !== null && v !== undefined));
  const optionsSnapshot: Record<string, { value: string; label: Record<string, string> }[]> = {};
  const claimed: string[] = [];
  for (const [key, value] of Object.entries(attributes)) {
    const field = `attributes.${key}`;
    const known = w.attributesByKey.get(key);
    const link = apply.get(key);
    if (!known) {
      problems.push({ field, message: 'is not an attribute: no live attribute has this key' });
      continue;
    }
    if (!link) {
      problems.push({
        field,
        message:
          "does not apply to this product: it is not linked to the product's attribute groups, categories or family",
      });
      continue;
    }
    const a = link.a;
    if (!fitsType(a, variation)) {
      problems.push({
        field,
        message: `applies to ${a.association === 'sku' ? 'variations' : 'products that are not variations'} only (association ${a.association}), and this product is a ${p.type}`,
      });
      continue;
    }
    const options = w.options.get(a._id);
    const valueProblems = validateAttributeValue(
      { type: a.type, type_config: a.type_config, options: options?.keys() },
      value,
      field,
    );
    if (valueProblems.length > 0) {
      problems.push(...valueProblems);
      continue;
    }
    attributes[key] = storedValue(a.type, value);
    if (options) {
      const used = Array.isArray(value) ? (value as string[]) : [value as string];
      optionsSnapshot[key] = used.map((v) => ({ value: v, label: options.get(v) ?? {} }));
    }
    if (a.unique) {
      const k = uniqueKey(key, attributes[key]);
      const holder = w.taken.get(k);
      const earlier = claims.get(k);
      if (holder && holder._id !== p._id && holder.code !== p.code)
        problems.push({
          field,
          message: `must be unique: product '${holder.code}' already holds ${JSON.stringify(attributes[key])}`,
          taken: true,
        });
      else if (earlier !== undefined && earlier !== p.code)
        problems.push({
          field,
          message: `must be unique: product '${earlier}' earlier in the batch holds ${JSON.stringify(attributes[key])}`,
          taken: true,
        });
      else claimed.push(k);
    }
  }
  const required = requiredAttributes(apply, variation);
  for (const a of required) {
    if (!filled(a, attributes[a.key]))
      problems.push({ field: `attributes.${a.key}`, message: 'is required for this product and has no value' });
  }
  if (problems.length > 0) return { ok: false, problems };
  for (const k of claimed) claims.set(k, p.code);

  const { completeness, completeness_min } = completenessOf(p, required, attributes);
  const schemaSnapshot = Object.fromEntries(
    [...apply.values()]
      .filter(({ a }) => fitsType(a, variation))
      .sort((x, y) => x.a.key.localeCompare(y.a.key))
      .map(({ a, required: r }) => [
        a.key,
        {
          _id: a._id,
          name: a.name,
          type: a.type,
          type_config: a.type_config,
          unique: a.unique,
          required: r,
          association: a.association,
        },
      ]),
  );
  return {
    ok: true,
    derived: {
      attributes,
      attributes_schema_snapshot: schemaSnapshot,
      attributes_options_snapshot: optionsSnapshot,
      completeness,
      completeness_min,
    },
  };
}
