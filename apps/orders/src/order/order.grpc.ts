import { orders as pb } from '@pim/contracts';
import { ValidationError } from '@pim/errors';
import type { Logger } from '@pim/logging';
import { orderFromWire, orderToWire, type OrderInput, type OrderView } from '@pim/resources';
import { unary, type ServiceRegistration } from '@pim/rpc';
import { recordHandlers, viewToMessage, type MessageCodec, type RecordService } from '@pim/records';
import type { OrderEntity } from '../entities/order.entity';
import type { OrderActions } from './order.actions';
import type { OrderBulkUpsert } from './order.bulk';

/** Keys proto leaves unset are dropped, so the strict input schema sees only what was given. */
function given(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(given);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, given(v)]),
  );
}

/** The message mirrors the view with nested `_id`s as `id`; an input comes back to the REST shape. */
const orderCodec: MessageCodec<OrderView, pb.Order, pb.OrderInput> = {
  toMessage: (view) => viewToMessage(orderToWire(view as never) as OrderView) as unknown as pb.Order,
  fromInput: (input) => {
    return given(orderFromWire({ ...(input ?? {}) })) as Record<string, unknown>;
  },
};

/** The JSON array of a bulk upsert. */
function bulkItemsOf(req: pb.BulkUpsertOrdersRequest): unknown[] {
  let items: unknown;
  try {
    items = JSON.parse(Buffer.from(req.items_json ?? new Uint8Array()).toString('utf8'));
  } catch {
    items = undefined;
  }
  if (!Array.isArray(items))
    throw new ValidationError('items_json must be a JSON array of order inputs', {
      details: [{ field: 'items_json', message: 'must be a JSON array of order inputs' }],
    });
  return items;
}

/** gRPC handlers of pim.orders.v1.OrdersService. */
export function ordersGrpc(
  service: RecordService<OrderEntity, OrderView, OrderInput>,
  actions: OrderActions,
  bulk: OrderBulkUpsert,
  logger: Logger,
): ServiceRegistration {
  const h = recordHandlers(
    service,
    orderCodec,
    logger,
    { one: 'Order', many: 'Orders' },
    (req: pb.BatchGetOrdersRequest) => req.codes ?? [],
  );
  const encode = (view: OrderView) => ({ data: orderCodec.toMessage(view) });
  const implementation: pb.OrdersServiceServer = {
    createOrder: h.create,
    getOrder: h.get,
    updateOrder: h.update,
    patchOrder: h.patch,
    deleteOrder: h.delete,
    listOrders: h.list,
    batchGetOrders: h.batchGet,
    bulkUpsertOrders: unary(logger, 'BulkUpsertOrders', async (req: pb.BulkUpsertOrdersRequest) => ({
      data: (await bulk.upsert(bulkItemsOf(req))).map(({ _id, ...r }) => ({
        ...r,
        ...(_id !== undefined ? { id: _id } : {}),
      })) as pb.BulkOrderResult[],
    })),
    moveOrderStatus: unary(logger, 'MoveOrderStatus', async (req: pb.MoveOrderStatusRequest) =>
      encode(await actions.move(req.id, req.status_code, req.comment, req.expected_version)),
    ),
    addOrderComment: unary(logger, 'AddOrderComment', async (req: pb.AddOrderCommentRequest) =>
      encode(await actions.comment(req.id, req.text, req.expected_version)),
    ),
    addOrderPayment: unary(logger, 'AddOrderPayment', async (req: pb.AddOrderPaymentRequest) =>
      encode(await actions.payment(req.id, given(req.payment), req.expected_version)),
    ),
    addOrderInvoice: unary(logger, 'AddOrderInvoice', async (req: pb.AddOrderInvoiceRequest) =>
      encode(await actions.invoice(req.id, given(req.invoice), req.expected_version)),
    ),
    countOpenOrders: unary(logger, 'CountOpenOrders', async (req: pb.CountOpenOrdersRequest) => ({
      count: await actions.openOrders(req.workflow_id),
    })),
  };
  return { name: 'pim.orders.v1.OrdersService', definition: pb.OrdersServiceService, implementation };
}
