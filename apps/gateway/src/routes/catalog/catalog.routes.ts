import { z } from 'zod';
import {
  IN_CHILDREN_FILTER,
  attributeGroupSchemas,
  attributeSchemas,
  brandListDecl,
  brandSchemas,
  catalogListDecl,
  catalogSchemas,
  categoryListDecl,
  categorySchemas,
  categoryTreeListDecl,
  categoryTreeSchemas,
  familyListDecl,
  familySchemas,
  productRelationSchemas,
  productSchemas,
} from '@pim/resources';
import type { Api } from '../../http/route';
import type { RelatedRecords } from '../owners';
import type { CatalogClients, RecordClient } from './catalog.clients';
import type { BatchLoader } from '../../http/expand';
import { brandCodec, catalogCodec, categoryCodec, categoryTreeCodec, familyCodec } from './taxonomy.codecs';
import { attributeCodec, attributeGroupCodec } from './attributes.codecs';
import { ATTRIBUTE_TAG_DESCRIPTIONS, attributeRoutes } from './attributes.routes';
import { recordRoutes, type RecordCodec, type RecordRouteSpec } from '../../http/resource.routes';
import { PRODUCT_TAG_DESCRIPTIONS, productRoutes } from './products.routes';
import { productCodec } from './products.codecs';
import { RELATION_TAG_DESCRIPTIONS, productRelationCodec, relationRoutes } from './relations.routes';

/** Descriptions of the OpenAPI tags the catalog's routes use. */
export const CATALOG_TAG_DESCRIPTIONS: Record<string, string> = {
  Brands: 'Brands of products',
  'Category trees': 'Roots of category hierarchies; a tree with live categories cannot be deleted',
  Categories:
    'Nodes of a category tree: no cycles, moving one moves its subtree, categories_in_children selects a subtree',
  Families: 'Attribute groups and attributes (with required) a kind of product carries',
  Catalogs: 'Selections of products and the users groups that may see them',
  ...ATTRIBUTE_TAG_DESCRIPTIONS,
  ...PRODUCT_TAG_DESCRIPTIONS,
  ...RELATION_TAG_DESCRIPTIONS,
};

const ID = /^[0-9a-f]{24}$/;
const IDS = /^[0-9a-f]{24}(,[0-9a-f]{24})*$/;
const EXAMPLE = '6740a1b2c3d4e5f601234567';

/** The subtree filter in words (the generic filter wording would describe an array field). */
const subtreeParams = {
  [IN_CHILDREN_FILTER]: z
    .string()
    .regex(ID)
    .max(24)
    .optional()
    .meta({ description: 'Only the category with this _id and all its descendants', example: EXAMPLE }),
  [`${IN_CHILDREN_FILTER}_in`]: z
    .string()
    .regex(IDS)
    .max(8000)
    .optional()
    .meta({ description: 'Only categories in any of these subtrees (comma-separated _ids)', example: EXAMPLE }),
  [`${IN_CHILDREN_FILTER}_nin`]: z
    .string()
    .regex(IDS)
    .max(8000)
    .optional()
    .meta({ description: 'Leave out these subtrees (comma-separated _ids)', example: EXAMPLE }),
  [`${IN_CHILDREN_FILTER}_ne`]: z
    .string()
    .regex(ID)
    .max(24)
    .optional()
    .meta({ description: 'Leave out the category with this _id and all its descendants', example: EXAMPLE }),
};

/** BatchGet through a client (looked up at call time), as records the API shows. */
function loader<V extends { _id: string }, M, In, I>(
  client: () => RecordClient<M, In>,
  codec: RecordCodec<V, M, In, I>,
): BatchLoader {
  return async (ids) => (await client().batchGet({ ids, handles: [] })).data.map((m) => codec.fromMessage(m));
}

/**
 * Declares the routes of the catalog app: /brands, /category-trees, /categories, /families,
 * /catalogs, /attributes (with /attributes/{id}/options), /attribute-groups, /products (with /products/bulk) and /product-relations. `clients` is
 * only touched when a request arrives. Answers how the catalog's records are loaded and shown, for
 * other apps' lists that expand them (a publication's product).
 */
export function catalogRoutes(
  api: Api,
  clients: CatalogClients,
  limits: { maxLimit: number; defaultLimit: number },
): RelatedRecords {
  const brands = () => clients.brands;
  const trees = () => clients.categoryTrees;
  const categories = () => clients.categories;
  const families = () => clients.families;
  const catalogs = () => clients.catalogs;
  const loaders: Record<string, BatchLoader> = {
    brands: loader(brands, brandCodec),
    category_trees: loader(trees, categoryTreeCodec),
    categories: loader(categories, categoryCodec),
    families: loader(families, familyCodec),
    catalogs: loader(catalogs, catalogCodec),
    attributes: loader(() => clients.attributes, attributeCodec),
    attribute_groups: loader(() => clients.attributeGroups, attributeGroupCodec),
    products: loader(() => clients.products, productCodec),
    product_relations: loader(() => clients.productRelations, productRelationCodec),
  };
  const views = {
    brands: brandSchemas.view,
    category_trees: categoryTreeSchemas.view,
    categories: categorySchemas.view,
    families: familySchemas.view,
    catalogs: catalogSchemas.view,
    attributes: attributeSchemas.view,
    attribute_groups: attributeGroupSchemas.view,
    products: productSchemas.view,
    product_relations: productRelationSchemas.view,
  };
  const declare = <V extends { _id: string; version: number }, M, In, I>(spec: RecordRouteSpec<V, M, In, I>) =>
    recordRoutes(api, spec, limits, loaders, views);

  declare({
    collection: 'brands',
    schemas: brandSchemas,
    listDecl: brandListDecl,
    client: brands,
    codec: brandCodec,
  });
  declare({
    collection: 'category_trees',
    schemas: categoryTreeSchemas,
    listDecl: categoryTreeListDecl,
    client: trees,
    codec: categoryTreeCodec,
  });
  declare({
    collection: 'categories',
    schemas: categorySchemas,
    listDecl: categoryListDecl,
    listParams: subtreeParams,
    client: categories,
    codec: categoryCodec,
  });
  declare({
    collection: 'families',
    schemas: familySchemas,
    listDecl: familyListDecl,
    client: families,
    codec: familyCodec,
  });
  declare({
    collection: 'catalogs',
    schemas: catalogSchemas,
    listDecl: catalogListDecl,
    client: catalogs,
    codec: catalogCodec,
  });
  attributeRoutes(declare, clients);
  productRoutes(api, declare, clients);
  relationRoutes(declare, clients);
  return { loaders, views };
}
