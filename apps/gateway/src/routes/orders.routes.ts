import type { ZodType } from 'zod';
import { orders as pb } from '@pim/contracts';
import { writtenErrorObject, type WireErrorObject } from '@pim/errors';
import { requireId } from '@pim/ids';
import {
  Order,
  orderBulkSchemas,
  orderCommentInputSchema,
  channelInput,
  orderFromWire,
  orderInvoiceInputSchema,
  orderMoveSchema,
  orderPaymentInputSchema,
  orderToWire,
  type BulkItemResult,
  type OrderInput,
  type OrderView,
} from '@pim/resources';
import { createRpcClient, recordClient, type PromiseClient, type RecordClient } from '@pim/rpc';
import { z } from 'zod';
import { etag, etagHeaders, expectedVersion, ifMatchHeader } from '../http/conditional';
import { declaredCodec } from '../http/declared.codec';
import { recordRoutes } from '../http/resource.routes';
import type { Api } from '../http/route';
import { apiLinkWriter } from '../openapi/links';
import type { OwnerRoutes } from './owners';

/** The orders app's services as the gateway calls them. */
interface OrdersClients {
  orders: RecordClient<pb.Order, pb.OrderInput>;
  /** Moves, appends, bulk upsert: the calls beside the record ones. */
  actions: PromiseClient<pb.OrdersServiceClient>;
  // generator:client-types
  close(): void;
}

/** One nested field of an order between its REST and proto shapes (`_id` ↔ `id` inside). */
const nested = (key: string, convert: (o: Record<string, unknown>) => Record<string, unknown>) => (value: unknown) =>
  convert({ [key]: value })[key];

const orderCodec = declaredCodec<OrderView, pb.Order, pb.OrderInput, OrderInput>(Order, {
  toInput: {
    customer: nested('customer', orderToWire),
    workflow: nested('workflow', orderToWire),
    // `_id`, as some channels send it, is the channel's id.
    channel: (value: unknown) => channelInput(value as Record<string, unknown>),
  },
  fromMessage: Object.fromEntries(
    ['customer', 'status', 'workflow', 'order_trackings', 'order_comments'].map((k) => [k, nested(k, orderFromWire)]),
  ),
});

type Append = 'comment' | 'payment' | 'invoice' | 'move';

/** The calls that change an order besides its fields: a status move and three appends. */
const ACTIONS: Record<
  Append,
  {
    path: string;
    operationId: string;
    summary: string;
    description: string;
    body: ZodType;
    call(
      c: OrdersClients['actions'],
      id: string,
      body: Record<string, unknown>,
      version?: number,
    ): Promise<{ data?: pb.Order }>;
  }
> = {
  move: {
    path: 'status',
    operationId: 'moveOrderStatus',
    summary: 'Move an order to another status of its workflow',
    description:
      "The status must be one of the order's workflow (as it was copied when the order was created) and allowed from the current one (the current status lists it in `moves_to`, or lists none); otherwise 400 or 409 naming both statuses. The move appends an `order_trackings` entry and sets `status`, `status_code`, `status_updated_at`, `step_code`, `elapsed_time` (minutes since `placed_at`), `status_overdue_date` (now + the step's `allocation_time` hours) and `last_interaction` (the API key's user); a status with an outcome makes the order final (`final_status_type`, `final_status_at`) and a final order never moves again (409). Emits `orders.status_changed` with `{from, to, outcome, actor, at}` and `orders.updated`.",
    body: orderMoveSchema,
    call: (c, id, b, v) =>
      c.moveOrderStatus({
        id,
        status_code: b.status_code as string,
        comment: b.comment as string | undefined,
        expected_version: v,
      }),
  },
  comment: {
    path: 'comments',
    operationId: 'addOrderComment',
    summary: 'Add a comment to an order',
    description: "Appended to `order_comments` with the API key's user and the time. Emits `orders.updated`.",
    body: orderCommentInputSchema,
    call: (c, id, b, v) => c.addOrderComment({ id, text: b.text as string, expected_version: v }),
  },
  payment: {
    path: 'payments',
    operationId: 'addOrderPayment',
    summary: 'Add a payment to an order',
    description: 'Appended to `order_payments`. Emits `orders.updated`.',
    body: orderPaymentInputSchema,
    call: (c, id, b, v) => c.addOrderPayment({ id, payment: b as unknown as pb.OrderPayment, expected_version: v }),
  },
  invoice: {
    path: 'invoices',
    operationId: 'addOrderInvoice',
    summary: 'Add an invoice to an order',
    description:
      'Appended to `invoices`; the first invoice also gives the order its `invoice_number` when it has none (searchable). Emits `orders.updated`.',
    body: orderInvoiceInputSchema,
    call: (c, id, b, v) => c.addOrderInvoice({ id, invoice: b as unknown as pb.OrderInvoice, expected_version: v }),
  },
};

/** POST /orders/{id}/status, /comments, /payments, /invoices and /orders/bulk. */
function orderActionRoutes(api: Api, c: () => OrdersClients): void {
  for (const a of Object.values(ACTIONS)) {
    api.route({
      method: 'post',
      path: `/orders/:id/${a.path}`,
      operationId: a.operationId,
      scope: 'orders:write',
      summary: a.summary,
      description: a.description,
      tags: ['Orders'],
      body: a.body,
      requestHeaders: ifMatchHeader,
      errors: [409, 412],
      responses: {
        200: { description: 'The order after the change', schema: Order.schemas.view, headers: etagHeaders },
      },
      handler: async ({ params, body, headers }) => {
        const id = requireId(params.id, 'order');
        const reply = await a.call(
          c().actions,
          id,
          body as Record<string, unknown>,
          expectedVersion(headers['if-match'] as string | undefined),
        );
        if (!reply.data) throw new Error('the orders app answered without an order');
        const order = orderCodec.fromMessage(reply.data);
        return { status: 200, body: order, headers: { ETag: etag(order.version) } };
      },
    });
  }
  api.route({
    method: 'post',
    path: '/orders/bulk',
    operationId: 'bulkUpsertOrders',
    scope: 'orders:write',
    summary: 'Upsert up to 1,000 orders by code',
    description:
      'Each item is an order input, created when no live order has its code (with its workflow and first status) and written onto the live one otherwise (its workflow, status and history stay). Every item is checked on its own: the answer has one result per item (`created`, `updated` or `failed` with its error object), and one bad item never fails the others. Items with the same code are applied in the order given.',
    tags: ['Orders'],
    body: orderBulkSchemas.body,
    responses: { 200: { description: 'One result per item, in the order given', schema: orderBulkSchemas.result } },
    handler: async ({ body }) => {
      const { items } = body as z.infer<typeof orderBulkSchemas.body>;
      const r = await c().actions.bulkUpsertOrders({ items_json: Buffer.from(JSON.stringify(items), 'utf8') });
      const data: BulkItemResult[] = r.data.map(({ id, error, ...rest }) => ({
        ...rest,
        ...(id !== undefined ? { _id: id } : {}),
        status: rest.status as BulkItemResult['status'],
        ...(error !== undefined
          ? { error: writtenErrorObject(error as unknown as WireErrorObject, apiLinkWriter) as BulkItemResult['error'] }
          : {}),
      }));
      return { status: 200, body: { data } };
    },
  });
}

/** The orders app's routes: orders through the route factory, their moves, appends and bulk upsert. */
export const ordersRoutes: OwnerRoutes = {
  app: 'orders',
  addressEnv: 'ORDERS_GRPC_URL',
  defaultAddress: '127.0.0.1:50059',
  clients: (opts): OrdersClients => {
    const o = { service: 'orders', ...opts };
    const orders = createRpcClient(pb.OrdersServiceClient, o);
    // generator:clients
    return {
      orders: recordClient(orders, pb.OrdersServiceService, { one: 'Order', many: 'Orders', handles: 'codes' }),
      actions: orders,
      // generator:client-entries
      close: () => {
        orders.close();
        // generator:close
      },
    };
  },
  routes: (api, clients, limits) => {
    const c = clients as () => OrdersClients;
    orderActionRoutes(api, c);
    recordRoutes(
      api,
      {
        collection: 'orders',
        searches: 'code, external_code and invoice_number',
        schemas: Order.schemas,
        listDecl: Order.listDecl,
        nestedFilters: 'overdue',
        listParams: {
          overdue: z.enum(['true', 'false']).optional().meta({
            description:
              'true: orders not final whose sla_overdue_date or status_overdue_date has passed (now); false: the others',
          }),
        },
        client: () => c().orders,
        codec: orderCodec,
      },
      limits,
      {},
      {},
    );
    // generator:routes
  },
};
