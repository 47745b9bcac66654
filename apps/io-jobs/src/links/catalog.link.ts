import { attributes as apb, common, products as ppb, relations as rpb, taxonomy as tpb } from '@pim/contracts';
import type { AttributeType, BulkItemResult, TypeConfig } from '@pim/resources';
import { createRpcClient, readServerStream } from '@pim/rpc';

/** An attribute as an import reads values for it: its type, settings and option values and labels. */
export interface ImportAttribute {
  id: string;
  key: string;
  type: AttributeType;
  type_config?: TypeConfig;
  /** Select and multiselect: each option's value with each of its labels. */
  options?: { value: string; label?: string }[];
  localizable: boolean;
  /** Its name per language. */
  name?: Record<string, string>;
}

/** Which products a scan or a description covers: the list query's filters and search. */
export interface ProductQuery {
  filters: common.Filter[];
  search: string;
}

/** What the products a query matches hold (for an export's default columns and its progress). */
export interface ProductsDescription {
  total: number;
  /** Languages of their names and descriptions. */
  languages: string[];
  /** Keys of the attributes they have values for. */
  attribute_keys: string[];
}

/** A record a product names, as an export writes it: its code and name. */
export interface NamedRecord {
  id: string;
  code: string;
  name: Record<string, string>;
  /** Categories: their tree. */
  category_tree_id?: string;
}

/** Collections whose records an export names by code. */
export type NamedCollection = 'brands' | 'families' | 'categories' | 'category_trees' | 'products';

/** A taxonomy collection an import names records of by code. */
export type CodedCollection = 'brands' | 'families' | 'categories';

/** A live product as attribute rows and eligibility rows read it: its id, lists and attribute values. */
export interface StoredProduct {
  id: string;
  code: string;
  categories: string[];
  catalogs: { _id: string; user_groups: string[] }[];
  attributes: Record<string, unknown>;
}

/** A relation as an import writes it: its product, its type and the list that type names. */
export interface RelationWrite {
  product_id: string;
  type: string;
  items: rpb.ProductRelationItem[];
}

/** What the io-jobs app asks the catalog. A catalog that does not answer is a 503 (an import's job retries). */
export interface CatalogLink {
  /** Live attributes by key, with their options. */
  attributes(keys: string[]): Promise<ImportAttribute[]>;
  /** Ids of live records by code: code → ids (a category code may be in several trees). */
  idsByCode(collection: CodedCollection, codes: string[]): Promise<Map<string, string[]>>;
  /** A live catalog's users groups, or undefined when there is none with that id. */
  catalog(id: string): Promise<{ user_groups: string[] } | undefined>;
  /** Whether a live category has this id. */
  categoryExists(id: string): Promise<boolean>;
  /** The categories and catalogs of live products by code. */
  productLists(
    codes: string[],
  ): Promise<Map<string, { categories: string[]; catalogs: { _id: string; user_groups: string[] }[] }>>;
  /** How many live products match, and the languages and attribute keys they use. */
  describe(query: ProductQuery): Promise<ProductsDescription>;
  /**
   * Refuses, as the caller, a query they could not run and columns naming attributes hidden from
   * them (the catalog's error, a 403 for a hidden attribute); reads no product.
   */
  checkQuery(query: ProductQuery, attributeKeys: string[]): Promise<void>;
  /** Every live product matching, in `_id` order, `batchSize` at a time (the catalog's keyset scan). */
  scan(query: ProductQuery, batchSize: number): AsyncIterable<ppb.Product[]>;
  /** The live relations of these products (at most 1,000) of these types. */
  relations(productIds: string[], types: string[]): Promise<rpb.ProductRelation[]>;
  /** Live records by id, with their codes and names (unknown ids are left out). */
  named(collection: NamedCollection, ids: string[]): Promise<NamedRecord[]>;
  /** The catalog's bulk upsert of one batch, merged onto stored products, applied once per batch id. */
  upsert(items: object[], batchId: string): Promise<BulkItemResult[]>;
  /** Live products by code, as the caller sees them (codes of no product, or of one out of sight, are left out). */
  storedProducts(codes: string[]): Promise<Map<string, StoredProduct>>;
  /** Live records by code, with their ids and (categories) trees; a category code may name several. */
  recordsByCode(collection: NamedCollection, codes: string[]): Promise<NamedRecord[]>;
  /** Live relations by key (`<product_id>:<type>`), as the caller sees them; unknown keys are left out. */
  relationsByKey(keys: string[]): Promise<rpb.ProductRelation[]>;
  /** Creates a relation as the caller (a 409 when the product has one of that type already). */
  createRelation(relation: RelationWrite): Promise<rpb.ProductRelation>;
  /** Replaces a relation's items as the caller, only while it is at `expectedVersion` (a 412 otherwise). */
  updateRelation(id: string, relation: RelationWrite, expectedVersion: number): Promise<rpb.ProductRelation>;
  close(): void;
}

const DEADLINE_MS = 10_000;
/** A batch of 1,000 products with their attributes is checked and written in one transaction: give it time. */
const BULK_DEADLINE_MS = 120_000;
const PAGE = 100;
/** What an export never reads of a product: its snapshots, most of its bytes. */
const SCAN_OMITS = ['attributes_schema_snapshot', 'attributes_options_snapshot'] as const;
/** DescribeProducts aggregates over every product a query matches. */
const DESCRIBE_DEADLINE_MS = 600_000;
/** A scan streams for as long as the export takes to write. */
const SCAN_DEADLINE_MS = 6 * 3_600_000;

/** A list query of filters and search alone (scans ignore the window and sort). */
const listQuery = (q: ProductQuery) => ({
  page: 1,
  limit: 0,
  skip: 0,
  sort: [],
  filters: q.filters,
  search: q.search,
  expand: [],
});

/** A relation's writable fields: the list its type names holds the items, the others are empty. */
const relationInput = (r: RelationWrite): rpb.ProductRelationInput => ({
  ...rpb.ProductRelationInput.fromPartial({ type: r.type, product_id: r.product_id }),
  [r.type]: r.items,
});

/** The catalog's services at `address` (`host:port`), connected on first use. */
export function catalogLink(address: string): CatalogLink {
  const o = { service: 'catalog', address, deadlineMs: DEADLINE_MS };
  let clients:
    | {
        attributes: ReturnType<typeof createRpcClient<apb.AttributesServiceClient>>;
        options: ReturnType<typeof createRpcClient<apb.AttributeOptionsServiceClient>>;
        brands: ReturnType<typeof createRpcClient<tpb.BrandsServiceClient>>;
        families: ReturnType<typeof createRpcClient<tpb.FamiliesServiceClient>>;
        categories: ReturnType<typeof createRpcClient<tpb.CategoriesServiceClient>>;
        catalogs: ReturnType<typeof createRpcClient<tpb.CatalogsServiceClient>>;
        products: ReturnType<typeof createRpcClient<ppb.ProductsServiceClient>>;
        trees: ReturnType<typeof createRpcClient<tpb.CategoryTreesServiceClient>>;
        relations: ReturnType<typeof createRpcClient<rpb.ProductRelationsServiceClient>>;
      }
    | undefined;
  const c = () =>
    (clients ??= {
      attributes: createRpcClient(apb.AttributesServiceClient, o),
      options: createRpcClient(apb.AttributeOptionsServiceClient, o),
      brands: createRpcClient(tpb.BrandsServiceClient, o),
      families: createRpcClient(tpb.FamiliesServiceClient, o),
      categories: createRpcClient(tpb.CategoriesServiceClient, o),
      catalogs: createRpcClient(tpb.CatalogsServiceClient, o),
      products: createRpcClient(ppb.ProductsServiceClient, o),
      trees: createRpcClient(tpb.CategoryTreesServiceClient, o),
      relations: createRpcClient(rpb.ProductRelationsServiceClient, o),
    });

  /** Live records of a collection by ids or by codes, 1,000 a call (the catalog's BatchGet limit). */
  async function batchGet(
    collection: NamedCollection,
    by: { ids?: string[]; codes?: string[] },
  ): Promise<NamedRecord[]> {
    const method = {
      brands: 'batchGetBrands',
      families: 'batchGetFamilies',
      categories: 'batchGetCategories',
      category_trees: 'batchGetCategoryTrees',
      products: 'batchGetProducts',
    }[collection];
    const client = (collection === 'category_trees' ? c().trees : c()[collection]) as unknown as {
      [k: string]: (req: { ids: string[]; codes: string[] }) => Promise<{ data: NamedRecord[] }>;
    };
    const keys = by.ids ?? by.codes ?? [];
    const found: NamedRecord[] = [];
    for (let i = 0; i < keys.length; i += 1_000) {
      const slice = keys.slice(i, i + 1_000);
      const { data } = await client[method](by.ids ? { ids: slice, codes: [] } : { ids: [], codes: slice });
      found.push(...data);
    }
    return found;
  }

  async function optionsOf(attributeId: string): Promise<{ value: string; label?: string }[]> {
    const all: { value: string; label?: string }[] = [];
    for (let page = 1; ; page++) {
      const { data } = await c().options.listAttributeOptions({
        attribute_id: attributeId,
        query: { page, limit: PAGE, skip: 0, sort: [], filters: [], search: '', expand: [] },
      });
      for (const option of data) {
        const labels = Object.values(option.label ?? {});
        if (labels.length === 0) all.push({ value: option.value });
        for (const label of labels) all.push({ value: option.value, label });
      }
      if (data.length < PAGE) return all;
    }
  }

  return {
    async attributes(keys) {
      if (keys.length === 0) return [];
      const { data } = await c().attributes.batchGetAttributes({ ids: [], keys });
      return Promise.all(
        data.map(async (a) => {
          const type = a.type as AttributeType;
          const type_config = (a.type_config ?? {}) as TypeConfig;
          return {
            id: a.id,
            key: a.key,
            type,
            type_config,
            localizable: Boolean((type_config as { localizable?: boolean }).localizable),
            name: a.name ?? {},
            ...(type === 'select' || type === 'multiselect' ? { options: await optionsOf(a.id) } : {}),
          };
        }),
      );
    },
    async idsByCode(collection, codes) {
      const found = new Map<string, string[]>();
      for (const r of await batchGet(collection, { codes })) found.set(r.code, [...(found.get(r.code) ?? []), r.id]);
      return found;
    },
    async catalog(id) {
      const { data } = await c().catalogs.batchGetCatalogs({ ids: [id], codes: [] });
      return data[0] ? { user_groups: data[0].user_groups ?? [] } : undefined;
    },
    async checkQuery(query, attributeKeys) {
      await c().products.checkProductsQuery({ query: listQuery(query), attribute_keys: attributeKeys });
    },
    async categoryExists(id) {
      const { data } = await c().categories.batchGetCategories({ ids: [id], codes: [] });
      return data.length > 0;
    },
    async productLists(codes) {
      const found = new Map<string, { categories: string[]; catalogs: { _id: string; user_groups: string[] }[] }>();
      if (codes.length === 0) return found;
      const { data } = await c().products.batchGetProducts({ ids: [], codes });
      for (const p of data)
        found.set(p.code, {
          categories: p.categories ?? [],
          catalogs: (p.catalogs ?? []).map((x) => ({ _id: x.id, user_groups: x.user_groups ?? [] })),
        });
      return found;
    },
    async describe(query) {
      // One aggregate over every product the query matches: ~20 s at a million, so not the unary deadline.
      const r = await c().products.describeProducts({ query: listQuery(query) }, { deadlineMs: DESCRIBE_DEADLINE_MS });
      return { total: Number(r.total), languages: r.languages, attribute_keys: r.attribute_keys };
    },
    async *scan(query, batchSize) {
      const messages = readServerStream<ppb.ScanProductsRequest, ppb.ScanProductsResponse>(
        c().products.raw,
        'scanProducts',
        { query: listQuery(query), batch_size: batchSize, omit: [...SCAN_OMITS] },
        { service: 'catalog', deadlineMs: SCAN_DEADLINE_MS },
      );
      for await (const m of messages) yield m.data;
    },
    async relations(productIds, types) {
      if (productIds.length === 0) return [];
      const filters = [
        { field: 'product_id', op: 'in', values: productIds },
        { field: 'type', op: 'in', values: types },
      ];
      const found: rpb.ProductRelation[] = [];
      const messages = readServerStream<rpb.ScanProductRelationsRequest, rpb.ScanProductRelationsResponse>(
        c().relations.raw,
        'scanProductRelations',
        { query: listQuery({ filters, search: '' }), batch_size: 1_000 },
        { service: 'catalog', deadlineMs: DEADLINE_MS * 6 },
      );
      for await (const m of messages) found.push(...m.data);
      return found;
    },
    async named(collection, ids) {
      return (await batchGet(collection, { ids })).map((r) => ({
        id: r.id,
        code: r.code,
        name: r.name ?? {},
        ...(r.category_tree_id ? { category_tree_id: r.category_tree_id } : {}),
      }));
    },
    async upsert(items, batchId) {
      const { data } = await c().products.bulkUpsertProducts(
        { items: [], items_json: Buffer.from(JSON.stringify(items)), batch_id: batchId, merge: true },
        { deadlineMs: BULK_DEADLINE_MS },
      );
      return data.map(({ id, ...r }) => ({ ...r, ...(id !== undefined ? { _id: id } : {}) }) as BulkItemResult);
    },
    async storedProducts(codes) {
      const found = new Map<string, StoredProduct>();
      for (let i = 0; i < codes.length; i += 1_000) {
        const { data } = await c().products.batchGetProducts({ ids: [], codes: codes.slice(i, i + 1_000) });
        for (const p of data)
          found.set(p.code, {
            id: p.id,
            code: p.code,
            categories: p.categories ?? [],
            catalogs: (p.catalogs ?? []).map((x) => ({ _id: x.id, user_groups: x.user_groups ?? [] })),
            attributes: (p.attributes ?? {}) as Record<string, unknown>,
          });
      }
      return found;
    },
    async recordsByCode(collection, codes) {
      if (codes.length === 0) return [];
      return (await batchGet(collection, { codes })).map((r) => ({
        id: r.id,
        code: r.code,
        name: r.name ?? {},
        ...(r.category_tree_id ? { category_tree_id: r.category_tree_id } : {}),
      }));
    },
    async relationsByKey(keys) {
      const found: rpb.ProductRelation[] = [];
      for (let i = 0; i < keys.length; i += 1_000) {
        const { data } = await c().relations.batchGetProductRelations({ ids: [], keys: keys.slice(i, i + 1_000) });
        found.push(...data);
      }
      return found;
    },
    async createRelation(relation) {
      const { data } = await c().relations.createProductRelation({ input: relationInput(relation) });
      return data!;
    },
    async updateRelation(id, relation, expectedVersion) {
      const { data } = await c().relations.updateProductRelation({
        id,
        input: relationInput(relation),
        expected_version: expectedVersion,
      });
      return data!;
    },
    close() {
      if (!clients) return;
      for (const client of Object.values(clients)) client.close();
    },
  };
}
