import type { AttributeDef, ProductDraft, ProductWorld } from './product.world';

/** What deciding which attributes a product needs reads of its world: families and attributes. */
export type RequirementWorld = Pick<ProductWorld, 'families' | 'attributesByKey'>;

/** An attribute that applies to a product, and whether the product must fill it. */
export interface Applicable {
  a: AttributeDef;
  required: boolean;
}

/** A product's stored completeness: per language, and its lowest value (indexed for lists). */
export interface Completeness {
  completeness: Record<string, number>;
  completeness_min: number;
}

/** Whether an attribute holds one text per language (filled per language for completeness). */
export const isLocalized = (a: AttributeDef) =>
  (a.type === 'text' || a.type === 'textarea') && a.type_config.localizable === true;

/** Whether a value counts as filled (in one language, for a localizable attribute). */
export function filled(a: AttributeDef, value: unknown, language?: string): boolean {
  if (value === null || value === undefined) return false;
  if (isLocalized(a)) {
    const texts = value as Record<string, unknown>;
    const asked = language === undefined ? Object.values(texts) : [texts[language]];
    return asked.some((t) => typeof t === 'string' && t.trim().length > 0);
  }
  if (typeof value === 'string') return value.trim().length > 0;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

/** Whether an attribute's association admits the product's type (docs/platform/rules.md: attribute types). */
export const fitsType = (a: AttributeDef, variation: boolean) =>
  a.association === 'product_and_sku' || (a.association === 'sku') === variation;

/**
 * The attributes that apply to a product — those linked to its attribute groups (its own and
 * its family's), to its categories, or named by its family — each with whether it must be
 * filled there (on the attribute, or on one of the links the product has).
 */
export function applicable(
  p: Pick<ProductDraft, 'family_id' | 'attribute_groups' | 'categories'>,
  w: RequirementWorld,
): Map<string, Applicable> {
  const family = p.family_id !== null ? w.families.get(p.family_id) : undefined;
  const groups = new Set([...p.attribute_groups, ...(family?.attribute_groups ?? [])]);
  const categories = new Set(p.categories);
  const byFamily = new Map((family?.attributes ?? []).map((a) => [a._id, a.required]));
  const out = new Map<string, Applicable>();
  for (const a of w.attributesByKey.values()) {
    const inGroups = a.groups.filter((l) => groups.has(l._id));
    const inCategories = a.categories.filter((l) => categories.has(l._id));
    const inFamily = byFamily.get(a._id);
    if (inGroups.length === 0 && inCategories.length === 0 && inFamily === undefined) continue;
    const required =
      a.required || inFamily === true || inGroups.some((l) => l.required) || inCategories.some((l) => l.required);
    out.set(a.key, { a, required });
  }
  return out;
}

/** The applicable attributes the product must fill: required there and fitting its type. */
export const requiredAttributes = (apply: Map<string, Applicable>, variation: boolean): AttributeDef[] =>
  [...apply.values()].filter(({ a, required }) => required && fitsType(a, variation)).map(({ a }) => a);

/**
 * Completeness per language of `name` ∪ `description`: floor(100 × filled required / required),
 * 100 when nothing is required; and its lowest value (100 when the product has no language).
 */
export function completenessOf(
  p: Pick<ProductDraft, 'name' | 'description'>,
  required: AttributeDef[],
  attributes: Record<string, unknown>,
): Completeness {
  const languages = [...new Set([...Object.keys(p.name), ...Object.keys(p.description)])].sort();
  const completeness = Object.fromEntries(
    languages.map((language) => {
      if (required.length === 0) return [language, 100];
      const done = required.filter((a) => filled(a, attributes[a.key], isLocalized(a) ? language : undefined)).length;
      return [language, Math.floor((100 * done) / required.length)];
    }),
  );
  return { completeness, completeness_min: Math.min(100, ...Object.values(completeness)) };
}

/** A stored product's completeness against a (fresh) world: what the background recompute writes. */
export function productCompleteness(
  p: Pick<
    ProductDraft,
    'family_id' | 'attribute_groups' | 'categories' | 'name' | 'description' | 'attributes' | 'type'
  >,
  w: RequirementWorld,
): Completeness {
  return completenessOf(p, requiredAttributes(applicable(p, w), p.type === 'variation'), p.attributes);
}
