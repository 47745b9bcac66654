import type { products as pb } from '@pim/contracts';
import { Product, type ProductInput, type ProductView } from '@pim/resources';
import type { RecordCodec } from '../../http/resource.routes';
import { declaredCodec, linksFromMessage, linksToMessage } from '../../http/declared.codec';

/** Products: catalogs carry `_id` in REST and `id` in protos; attributes and snapshots travel as Structs. */
export const productCodec: RecordCodec<ProductView, pb.Product, pb.ProductInput, ProductInput> = declaredCodec(
  Product,
  { toInput: { catalogs: linksToMessage }, fromMessage: { catalogs: linksFromMessage } },
);
