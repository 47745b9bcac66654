import type { EntityManager } from 'typeorm';
import { ValidationError, withLinks } from '@pim/errors';
import { productListDecl, productSchemas, type ProductInput, type ProductView } from '@pim/resources';
import { searchTextOf, type LockRequest, type RecordResource } from '@pim/records';
import { refuseInUse } from '@pim/records';
import { ProductEntity } from './product.entity';
import { checkProduct, type BatchClaims } from './product.rules';
import { loadWorld, lockStrings, type ProductWorld } from './product.world';
import { ATTRIBUTE_FILTER_PREFIX, applyAttributeFilters } from './product.filters';
import { refuseDeleteNamedByRelations } from '../relation/relation.usage';

/** The advisory-lock namespace of product codes: single writes and bulk upserts lock a code alike. */
export const CODE_LOCK = 'catalog.products.code';

const iso = (d: Date | null) => (d === null ? undefined : d.toISOString());

/** The stored columns of a validated input (everything but what the rules derive). */
export function productColumns(input: ProductInput): Partial<ProductEntity> {
  const name = input.name;
  return {
    family_id: input.family_id ?? null,
    brand_id: input.brand_id ?? null,
    fulfilled: input.fulfilled ?? null,
    categories: input.categories ?? [],
    category_trees: input.category_trees ?? [],
    product_id: input.product_id ?? null,
    catalogs: input.catalogs ?? [],
    attribute_groups: input.attribute_groups ?? [],
    code: input.code,
    name,
    description: input.description ?? {},
    image: input.image ?? null,
    images: input.images ?? [],
    attributes: input.attributes ?? {},
    enabled: input.enabled ?? true,
    tags: input.tags ?? [],
    type: input.type,
    product_approval: input.product_approval ?? null,
    last_approval_at: input.last_approval_at ? new Date(input.last_approval_at) : null,
    published: input.published ?? false,
    last_publishment_id: input.last_publishment_id ?? null,
    last_published_at: input.last_published_at ? new Date(input.last_published_at) : null,
    publishments: input.publishments ?? [],
    search_text: searchTextOf(input.code, name),
  };
}

/** The fields a product shows between `_id` and `version` (absent optional references left out). */
export function productView(
  p: ProductEntity,
): Omit<ProductView, '_id' | 'version' | 'created_at' | 'updated_at' | 'created_by_name'> {
  const optional = <T>(key: string, v: T | null | undefined) => (v === null || v === undefined ? {} : { [key]: v });
  return {
    ...optional('family_id', p.family_id),
    ...optional('brand_id', p.brand_id),
    ...optional('fulfilled', p.fulfilled),
    categories: p.categories,
    category_trees: p.category_trees,
    ...optional('product_id', p.product_id),
    catalogs: p.catalogs,
    attribute_groups: p.attribute_groups,
    attributes_schema_snapshot: p.attributes_schema_snapshot,
    attributes_options_snapshot: p.attributes_options_snapshot,
    code: p.code,
    name: p.name,
    description: p.description,
    ...optional('image', p.image),
    images: p.images,
    attributes: p.attributes,
    enabled: p.enabled,
    tags: p.tags,
    type: p.type,
    ...optional('product_approval', p.product_approval),
    ...optional('last_approval_at', iso(p.last_approval_at)),
    published: p.published,
    ...optional('last_publishment_id', p.last_publishment_id),
    ...optional('last_published_at', iso(p.last_published_at)),
    publishments: p.publishments,
    completeness: p.completeness,
  };
}

/** The error of a refused product: every problem at once, each naming its field. */
export function productProblemsError(code: string, problems: { field: string; message: string }[]): ValidationError {
  const first = problems[0];
  return new ValidationError(
    problems.length === 1
      ? `Product '${code}': ${first.field} ${first.message}`
      : `Product '${code}' has ${problems.length} problems: ${problems.map((p) => p.field).join(', ')}`,
    {
      title: 'Invalid product',
      ...withLinks(
        (link) =>
          `Fix each field listed in details: references must name live records, attribute values must suit their attribute (${link({ collection: 'attributes' })})`,
      ),
      details: problems,
    },
  );
}

/** Checks one product against its world and fills its derived columns, or throws every problem at once. */
export function applyRules(next: ProductEntity, world: ProductWorld, claims?: BatchClaims): void {
  const r = checkProduct(next, world, claims);
  if (!r.ok) throw productProblemsError(next.code, r.problems);
  Object.assign(next, r.derived);
}

async function lockCodes(m: EntityManager, request: LockRequest): Promise<void> {
  const codes: string[] = [];
  if (request.kind === 'create') codes.push(String(request.input.code));
  else {
    const [row]: { code: string }[] = await m.query(`SELECT "code" FROM "products" WHERE "_id" = $1`, [request.id]);
    if (row) codes.push(row.code);
    if (request.kind === 'update' && typeof request.given.code === 'string') codes.push(request.given.code);
  }
  await lockStrings(m, CODE_LOCK, codes);
}

/**
 * Products: named by `code`, searched by code and name. Every write checks the
 * references and the attribute values against the attributes that apply (see product.rules)
 * and stores the snapshots and completeness; a product that live variations name as their
 * parent, or that live relations name, cannot be deleted.
 */
export const productResource: RecordResource<ProductEntity, ProductView, ProductInput> = {
  collection: 'products',
  entity: ProductEntity,
  schemas: productSchemas,
  listDecl: productListDecl,
  handle: 'code',
  columns: (input) => productColumns(input),
  view: (p) => productView(p),
  nestedFilters: { prefix: ATTRIBUTE_FILTER_PREFIX, apply: applyAttributeFilters },
  rendered: true,
  hooks: {
    lock: lockCodes,
    async beforeWrite(m, next) {
      applyRules(next, await loadWorld(m, [next]));
    },
    async beforeDelete(m, product) {
      const [{ n }]: { n: number }[] = await m.query(
        `SELECT count(*)::int AS n FROM "products" WHERE "product_id" = $1 AND "deleted" = false`,
        [product._id],
      );
      refuseInUse('product', product.code, [{ count: n, collection: 'products', query: { product_id: product._id } }]);
      await refuseDeleteNamedByRelations('product')(m, product);
    },
  },
};
