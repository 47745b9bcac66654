import { products as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { ProductInput, ProductView } from '@pim/resources';
import { ValidationError } from '@pim/errors';
import { fromProtoListQuery, unary, type ServiceRegistration } from '@pim/rpc';
import { idsIn, idsOut, recordHandlers, viewToMessage, type MessageCodec } from '@pim/records';
import type { RecordService } from '@pim/records';
import type { ProductBulkUpsert } from './product.bulk';
import type { ProductsDescriber } from './product.describe';
import type { ProductPublishments, PublishmentOutcome } from './product.publishments';

/** Applies another app's approved change to a product, at most once per change id (the catalog's product-changes folder). */
export interface ProductChangesApplier {
  apply(req: pb.ApplyProductChangesRequest): Promise<pb.ApplyProductChangesResponse>;
}
import type { ProductEntity } from '../entities/product.entity';

/** Catalogs carry `_id` in REST and `id` in protos; attributes and snapshots travel as Structs. */
const productCodec: MessageCodec<ProductView, pb.Product, pb.ProductInput> = {
  toMessage: (view) => ({ ...viewToMessage(view), catalogs: idsOut(view.catalogs) }) as pb.Product,
  fromInput: (input) => {
    const plain = Object.fromEntries(Object.entries(input ?? {}).filter(([, v]) => v !== undefined));
    return { ...plain, catalogs: idsIn(input?.catalogs) };
  },
};

/** The items of a bulk upsert, sent as Structs or as one JSON array. */
function bulkItemsOf(req: pb.BulkUpsertProductsRequest): unknown[] {
  if (!req.items_json || req.items_json.length === 0) return req.items ?? [];
  if ((req.items ?? []).length > 0)
    throw new ValidationError('Send the items either as items or as items_json, not both');
  let items: unknown;
  try {
    items = JSON.parse(
      Buffer.from(req.items_json.buffer, req.items_json.byteOffset, req.items_json.byteLength).toString('utf8'),
    );
  } catch {
    throw new ValidationError('items_json is not valid JSON', {
      details: [{ field: 'items_json', message: 'must be a JSON array of product inputs' }],
    });
  }
  if (!Array.isArray(items))
    throw new ValidationError('items_json must be a JSON array', {
      details: [{ field: 'items_json', message: 'must be a JSON array of product inputs' }],
    });
  return items;
}

/** gRPC handlers of pim.catalog.v1.ProductsService. */
export function productsGrpc(
  service: RecordService<ProductEntity, ProductView, ProductInput>,
  bulk: ProductBulkUpsert,
  describer: ProductsDescriber,
  changes: ProductChangesApplier,
  publishments: ProductPublishments,
  visibleProducts: (ids: string[]) => Promise<string[]>,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    productCodec,
    logger,
    { one: 'Product', many: 'Products' },
    (req: pb.BatchGetProductsRequest) => req.codes ?? [],
  );
  const implementation: pb.ProductsServiceServer = {
    createProduct: h.create,
    getProduct: h.get,
    getProductJson: unary(logger, 'GetProductJson', async (req: pb.GetProductJsonRequest) => {
      const r = await service.getJson(req.id);
      return { id: r.id, version: r.version, json: Buffer.from(r.json, 'utf8') };
    }),
    updateProduct: h.update,
    patchProduct: h.patch,
    deleteProduct: h.delete,
    listProducts: h.list,
    listProductsJson: unary(logger, 'ListProductsJson', async (req: pb.ListProductsJsonRequest) => {
      const r = await service.listJson(fromProtoListQuery(req.query));
      return { data_json: Buffer.from(r.json, 'utf8'), page_info: { total: r.total } };
    }),
    batchGetProducts: h.batchGet,
    applyProductChanges: unary(logger, 'ApplyProductChanges', (req: pb.ApplyProductChangesRequest) =>
      changes.apply(req),
    ),
    bulkUpsertProducts: unary(logger, 'BulkUpsertProducts', async (req: pb.BulkUpsertProductsRequest) => ({
      data: (await bulk.upsert(bulkItemsOf(req), { batchId: req.batch_id || undefined, merge: req.merge })).map(
        ({ _id, ...r }) => ({
          ...r,
          ...(_id !== undefined ? { id: _id } : {}),
        }),
      ),
    })),
    scanProducts: h.scan,
    filterVisibleProducts: unary(logger, 'FilterVisibleProducts', async (req: pb.FilterVisibleProductsRequest) => ({
      ids: await visibleProducts(req.ids ?? []),
    })),
    checkProductsQuery: unary(logger, 'CheckProductsQuery', async (req: pb.CheckProductsQueryRequest) => {
      await service.checkQuery(
        fromProtoListQuery(req.query),
        (req.attribute_keys ?? []).map((key) => `attributes.${key}`),
      );
      return {};
    }),
    describeProducts: unary(logger, 'DescribeProducts', (req: pb.DescribeProductsRequest) =>
      describer.describe(fromProtoListQuery(req.query)),
    ),
    recordPublishments: unary(logger, 'RecordPublishments', async (req: pb.RecordPublishmentsRequest) => ({
      missing_product_ids: await publishments.record(
        (req.outcomes ?? []).map((o) => ({ ...o, status: o.status as PublishmentOutcome['status'] })),
      ),
    })),
    updateProductPublication: unary(
      logger,
      'UpdateProductPublication',
      async (req: pb.UpdateProductPublicationRequest) => {
        // A merge patch of the four fields alone: the product's other fields and rules stay as they are.
        const patch = {
          published: req.published,
          last_published_at: req.last_published_at ?? null,
          last_publishment_id: req.last_publishment_id ?? null,
          publishments: req.publishments ?? [],
        };
        return { data: productCodec.toMessage(await service.patch(req.id, patch, req.expected_version)) };
      },
    ),
  };
  return { name: 'pim.catalog.v1.ProductsService', definition: pb.ProductsServiceService, implementation };
}
