import type { EntityManager } from 'typeorm';
import { lockStrings } from '@pim/db';
import { ConflictError, ValidationError, withLinks } from '@pim/errors';
import { CATALOG_ID_FILTER, Product, type ProductInput } from '@pim/resources';
import { declaredRecord, refuseInUse, type LockRequest } from '@pim/records';
import { ProductEntity } from '../entities/product.entity';
import { checkProduct, type BatchClaims, type ProductProblem } from './product.rules';
import { loadWorld, type ProductWorld } from './product.world';
import {
  ATTRIBUTE_FILTER_PREFIX,
  applyAttributeFilters,
  applyCatalogFilters,
  resolveAttributeFilters,
} from './product.filters';
import { keepHiddenValues, productAudience, refuseHiddenAttributes } from '../access/product-sight';
import { refuseDeleteNamedByRelations } from '../relation/relation.usage';
import { productCodesOf, variationsOf } from '../repositories/products.repository';

/** The advisory-lock namespace of product codes: single writes and bulk upserts lock a code alike. */
export const CODE_LOCK = 'catalog.products.code';

/** The stored columns of a validated input (everything but what the rules derive): the declared ones and the search text. */
export function productColumns(input: ProductInput): Partial<ProductEntity> {
  return productResource.columns(input, null);
}

/** The fields a product shows between `_id` and `version` (absent optional references left out), from its declaration. */
export function productView(p: ProductEntity): ReturnType<typeof productResource.view> {
  return productResource.view(p);
}

/**
 * The error of a refused product: every problem at once, each naming its field. A 409 when its only
 * problems are unique values other products hold (the request is well formed; the values are
 * taken, as a taken code is), else a 400 with them all.
 */
export function productProblemsError(code: string, problems: ProductProblem[]): ValidationError | ConflictError {
  const details = problems.map(({ field, message }) => ({ field, message }));
  const first = details[0];
  const message =
    details.length === 1
      ? `Product '${code}': ${first.field} ${first.message}`
      : `Product '${code}' has ${details.length} problems: ${details.map((p) => p.field).join(', ')}`;
  if (problems.every((p) => p.taken))
    return new ConflictError(message, {
      title: 'Unique value taken',
      solution: 'Give this product another value, or first change the product that holds it',
      details,
    });
  return new ValidationError(message, {
    title: 'Invalid product',
    ...withLinks(
      (link) =>
        `Fix each field listed in details: references must name live records, attribute values must suit their attribute (${link({ collection: 'attributes' })})`,
    ),
    details,
  });
}

/**
 * Checks one product against its world and fills its derived columns, or throws every problem at
 * once; `prev`: the product as stored (the parent it already names may stay out of the caller's sight).
 */
export function applyRules(
  next: ProductEntity,
  world: ProductWorld,
  claims?: BatchClaims,
  prev?: ProductEntity | null,
): void {
  const r = checkProduct(next, world, claims, prev?.product_id ?? null);
  if (!r.ok) throw productProblemsError(next.code, r.problems);
  Object.assign(next, r.derived);
}

/**
 * What product writes lock before their rows, for one write or a batch (`mutateMany`): attributes
 * hidden from the caller refused, then the codes the products hold and take locked in code order
 * (as the bulk upsert locks them), one statement for the batch.
 */
async function lockCodes(m: EntityManager, requests: LockRequest[]): Promise<void> {
  for (const request of requests)
    if (request.kind !== 'delete')
      await refuseHiddenAttributes(m, request.kind === 'create' ? request.input.attributes : request.given.attributes);
  const codes: string[] = [];
  const ids: string[] = [];
  for (const request of requests) {
    if (request.kind === 'create') codes.push(String(request.input.code));
    else {
      ids.push(request.id);
      if (request.kind === 'update' && typeof request.given.code === 'string') codes.push(request.given.code);
    }
  }
  codes.push(...(await productCodesOf(m, ids)));
  await lockStrings(m, CODE_LOCK, codes);
}

/**
 * Products: named by `code`, searched by code and name. Every write checks the
 * references and the attribute values against the attributes that apply (see product.rules)
 * and stores the snapshots and completeness; a product that live variations name as their
 * parent, or that live relations name, cannot be deleted. Lists also filter on attribute values
 * (`attributes.<key>`) and catalog membership (`catalog_id`), see product.filters. A caller bound
 * to a user sees only the products of their catalogs and not the attributes hidden from them
 * (product.access).
 */
export const productResource = declaredRecord(Product, {
  entity: ProductEntity,
  handle: 'code',
  nestedFilters: [
    { prefix: ATTRIBUTE_FILTER_PREFIX, resolve: resolveAttributeFilters, apply: applyAttributeFilters },
    { prefix: CATALOG_ID_FILTER, apply: applyCatalogFilters },
  ],
  rendered: true,
  audience: productAudience,
  hooks: {
    lock: (m, request) => lockCodes(m, [request]),
    lockMany: lockCodes,
    async beforeWrite(m, next, prev) {
      await keepHiddenValues(m, next, prev);
      applyRules(next, await loadWorld(m, [next]), undefined, prev);
    },
    async beforeDelete(m, product) {
      const variations = await variationsOf(m, product._id);
      refuseInUse('product', product.code, [
        { count: variations, collection: 'products', query: { product_id: product._id } },
      ]);
      await refuseDeleteNamedByRelations('product')(m, product);
    },
  },
});
