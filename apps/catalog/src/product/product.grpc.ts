import { products as pb } from '@pim/contracts';
import type { Logger } from '@pim/logging';
import type { ProductInput, ProductView } from '@pim/resources';
import { unary, type ServiceRegistration } from '@pim/rpc';
import { idsIn, idsOut, recordHandlers, viewToMessage, type RecordCodec } from '../record/record.grpc';
import type { RecordService } from '../record/record.service';
import type { ProductBulkUpsert } from './product.bulk';
import type { ProductEntity } from './product.entity';

/** Catalogs carry `_id` in REST and `id` in protos; attributes and snapshots travel as Structs. */
const productCodec: RecordCodec<ProductView, pb.Product, pb.ProductInput> = {
  toMessage: (view) => ({ ...viewToMessage(view), catalogs: idsOut(view.catalogs) }) as pb.Product,
  fromInput: (input) => {
    const plain = Object.fromEntries(Object.entries(input ?? {}).filter(([, v]) => v !== undefined));
    return { ...plain, catalogs: idsIn(input?.catalogs) };
  },
};

/** gRPC handlers of pim.catalog.v1.ProductsService. */
export function productsGrpc(service: RecordService<ProductEntity, ProductView, ProductInput>, bulk: ProductBulkUpsert, logger: Logger): ServiceRegistration {
  const h = recordHandlers(service, productCodec, logger, { one: 'Product', many: 'Products' }, (req: pb.BatchGetProductsRequest) => req.codes ?? []);
  const implementation: pb.ProductsServiceServer = {
    createProduct: h.create,
    getProduct: h.get,
    updateProduct: h.update,
    patchProduct: h.patch,
    deleteProduct: h.delete,
    listProducts: h.list,
    batchGetProducts: h.batchGet,
    bulkUpsertProducts: unary(logger, 'BulkUpsertProducts', async (req: pb.BulkUpsertProductsRequest) => ({
      data: (await bulk.upsert(req.items ?? [])).map(({ _id, ...r }) => ({ ...r, ...(_id !== undefined ? { id: _id } : {}) })),
    })),
  };
  return { name: 'pim.catalog.v1.ProductsService', definition: pb.ProductsServiceService, implementation };
}
