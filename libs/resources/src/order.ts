import { z } from 'zod';
import { codeSchema, codeViewSchema, userIdViewSchema } from './codes';
import { dateTimeSchema, objectIdSchema } from './common';
import { field } from './declare/field';
import { defineResource } from './declare/resource';
import { BULK_MAX_ITEMS, bulkItemResultSchema } from './products';
import { Workflow, idIn, idOut, workflowStepsFromWire, workflowStepsToWire, type Ided, type Wired } from './workflow';

// Orders: what a sales channel sold, moving through the statuses of the workflow it was placed
// under (a copy kept on the order). The shapes the interface leaves open (items, payments,
// invoices, trackings, comments, logistics) follow what order systems carry; see
// docs/decisions/orders.md.

/** How an order ended. */
export const FINAL_STATUS_TYPES = ['COMPLETED', 'CANCELED'] as const;
/** Where a payment stands. */
export const PAYMENT_STATUSES = ['pending', 'authorized', 'paid', 'refunded', 'canceled'] as const;

const text = (max = 200) => z.string().max(max);
const optionalText = (max = 200) => text(max).optional();
const money = z.number().min(-1e12).max(1e12);
const urlSchema = z
  .url({ protocol: /^https?$/ })
  .max(2_048)
  .meta({ example: 'https://cdn.example.com/o/1.pdf' });
const boundedRecord = <T extends z.ZodType>(value: T, description: string) =>
  z
    .record(z.string().min(1).max(100), value)
    .refine((r) => Object.keys(r).length <= 100, 'must have at most 100 keys')
    .meta({ description });

const storeSchema = z
  .strictObject({ code: optionalText(100), name: optionalText() })
  .meta({ id: 'OrderStore', description: 'A store: its code and name' });

const channelSchema = z
  .strictObject({
    id: objectIdSchema.optional(),
    _id: objectIdSchema.optional().meta({ description: 'The same as id, as some channels send it (stored as id)' }),
    code: z.string().trim().min(1).max(100).meta({ description: 'The sales channel', example: 'marketplace' }),
    name: optionalText(),
    image: urlSchema.optional(),
  })
  .refine((c) => c.id === undefined || c._id === undefined || c.id === c._id, {
    message: 'id and _id name two different channels: send one of them',
    path: ['_id'],
  })
  .meta({ id: 'OrderChannel', description: 'The sales channel the order came from; `code` is required' });

/** The workflow an order is created under, by `_id` or `code`: the order copies it as it is then. */
const workflowRefSchema = z
  .strictObject({
    _id: objectIdSchema.optional(),
    code: codeSchema({ description: 'The workflow, by code', example: 'pedidos-loja' }).optional(),
  })
  .refine((w) => w._id !== undefined || w.code !== undefined, 'must name the workflow by _id or code')
  .meta({
    id: 'OrderWorkflowRef',
    description:
      'The workflow to follow, by `_id` or `code` (on create; the same as workflow_id or workflow_code). The order copies the workflow as it is then: its steps and statuses are read from it, never from this object',
  });

const coordinates = z
  .array(z.number().min(-180).max(180))
  .min(2, 'must be two numbers: longitude and latitude')
  .max(2, 'must be two numbers: longitude and latitude')
  .meta({ description: '[longitude, latitude] in degrees', example: [-46.6333, -23.5505] });

const addressSchema = z
  .strictObject({
    zipcode: optionalText(20),
    street: optionalText(),
    city: optionalText(),
    state: optionalText(),
    number: optionalText(20),
    complement: optionalText(),
    neighborhood: optionalText(),
    country: optionalText(),
    contact_name: optionalText(),
    contact_phone: optionalText(50),
    coordinates: coordinates.optional(),
  })
  .meta({ id: 'OrderAddress', description: 'An address' });

const customerSchema = z
  .strictObject({
    _id: objectIdSchema.optional(),
    code: optionalText(100),
    name: optionalText(),
    email: z.email().max(320).optional().meta({ example: 'ana@example.com' }),
    phone: optionalText(50),
    document: optionalText(50),
    document_type: optionalText(20),
    address: addressSchema.optional(),
  })
  .meta({ id: 'OrderCustomer', description: 'Who bought' });

const totalsSchema = z
  .strictObject(
    Object.fromEntries(
      [
        'balance',
        'discount',
        'shipping',
        'subtotal',
        'total',
        'virtual_balance',
        'virtual_discount',
        'virtual_shipping',
        'virtual_subtotal',
        'virtual_total',
      ].map((k) => [k, money.optional()]),
    ),
  )
  .meta({ id: 'OrderTotals', description: 'Amounts of the order' });

const conditionSchema = z
  .strictObject({
    kind: optionalText(50),
    code: optionalText(100),
    label: optionalText(),
    caption: optionalText(),
    description: optionalText(2_000),
    value: money.optional(),
    factor: z.number().min(-1e6).max(1e6).optional(),
  })
  .meta({ id: 'OrderCondition', description: 'A condition of the order (a discount, a fee, an installment plan)' });

const itemSchema = z
  .strictObject({
    sku: optionalText(100),
    product_id: objectIdSchema.optional(),
    name: optionalText(),
    quantity: z.number().gt(0).max(1e9),
    unit_price: money.optional(),
    discount: money.optional(),
    total: money.optional(),
  })
  .meta({ id: 'OrderItem', description: 'A line of the order: what, how many, at what price' });

const paymentSchema = z
  .strictObject({
    method: z.string().trim().min(1).max(50).meta({ example: 'credit_card' }),
    amount: money,
    currency: z
      .string()
      .max(3)
      .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code')
      .optional()
      .meta({ example: 'BRL' }),
    status: z.enum(PAYMENT_STATUSES),
    installments: z.number().int().min(1).max(120).optional().meta({ format: 'int32' }),
    transaction_id: optionalText(200),
    paid_at: dateTimeSchema.optional(),
  })
  .meta({ id: 'OrderPayment', description: 'A payment of the order' });

const invoiceSchema = z
  .strictObject({
    number: z.string().trim().min(1).max(100),
    series: optionalText(20),
    key: optionalText(100).meta({ description: 'The access key of an electronic invoice' }),
    url: urlSchema.optional(),
    amount: money.optional(),
    issued_at: dateTimeSchema.optional(),
  })
  .meta({ id: 'OrderInvoice', description: 'An invoice of the order' });

const logisticsSchema = z
  .strictObject({
    carrier: optionalText(),
    service: optionalText(),
    tracking_code: optionalText(100),
    tracking_url: urlSchema.optional(),
    cost: money.optional(),
    shipped_at: dateTimeSchema.optional(),
    estimated_delivery_at: dateTimeSchema.optional(),
    delivered_at: dateTimeSchema.optional(),
  })
  .meta({ id: 'OrderLogistics', description: 'How the order travels' });

const actorSchema = z
  .strictObject({ user_id: text(200).optional(), user_name: optionalText() })
  .meta({ id: 'OrderActor', description: 'Who did it (the API key’s user), when known' });

const statusSchema = z
  .strictObject({
    _id: objectIdSchema,
    code: codeViewSchema(),
    name: text(),
    color: optionalText(50),
    tracking_id: objectIdSchema.meta({ description: 'The order_trackings entry that moved the order here' }),
    tags: z.array(text(100)).max(100),
  })
  .meta({ id: 'OrderStatus', description: 'The status the order is in' });

const trackingSchema = z
  .strictObject({
    _id: objectIdSchema,
    from_status_code: codeViewSchema().nullable().meta({ description: 'null for the first entry' }),
    to_status_code: codeViewSchema(),
    step_code: codeViewSchema(),
    outcome: z.enum(['', ...FINAL_STATUS_TYPES]),
    comment: optionalText(2_000),
    actor: actorSchema,
    at: dateTimeSchema,
    elapsed_time: z.number().int().min(0).max(1e9).meta({ format: 'int32', description: 'Minutes since placed_at' }),
  })
  .meta({ id: 'OrderTracking', description: 'A move of the order between statuses' });

const commentSchema = z
  .strictObject({ _id: objectIdSchema, text: text(10_000), by: actorSchema, at: dateTimeSchema })
  .meta({ id: 'OrderComment', description: 'A comment on the order' });

const lastInteractionSchema = z
  .strictObject({ user_id: userIdViewSchema, user_name: text(), interacted_at: dateTimeSchema })
  .meta({ id: 'OrderLastInteraction', description: 'The last user who moved the order, and when' });

const date = (description: string) => field.of('date', { input: dateTimeSchema.meta({ description }) });
const computedDate = (description: string) => field.computed('date', dateTimeSchema.meta({ description }));
const list = <T extends z.ZodType>(item: T, max: number) =>
  field
    .of('array', { input: z.array(item).max(max) })
    .default([])
    .listed(false);

/**
 * Orders: named by `code`; searched by code, external code and invoice number. The workflow is
 * named on create (`workflow_id` or `workflow_code`, else the default one) and kept as it was;
 * the status fields, trackings and comments are the owner's to write (moves and appends).
 */
export const Order = defineResource({
  collection: 'orders',
  description: 'Order',
  fields: {
    code: field
      .of('string', {
        input: codeSchema({ description: 'Unique among live orders', example: 'PED-2026/0001' }),
        view: codeViewSchema(),
      })
      .required()
      .searchable()
      .normalized(),
    external_code: field
      .of('string', { input: z.string().trim().min(1).max(200).meta({ description: 'The channel’s identifier' }) })
      .required()
      .searchable(),
    invoice_number: field.of('string', { input: z.string().trim().min(1).max(100) }).searchable(),
    placed_at: date('When the order was placed (default: when it was created here)'),
    store_source: field.of('object', { input: storeSchema }),
    store_target: field.of('object', { input: storeSchema }),
    channel: field.of('object', { input: channelSchema }).required(),
    final_status_type: field.computed('string', z.enum(FINAL_STATUS_TYPES)).filterable(),
    final_status_at: computedDate('When it reached a final status'),
    elapsed_time: field.computed(
      'number',
      z
        .number()
        .int()
        .min(0)
        .max(1e9)
        .meta({ format: 'int32', description: 'Minutes from placed_at to the last move' }),
    ),
    status_code: field.computed('string', codeViewSchema()).filterable().normalized(),
    status_updated_at: computedDate('When its status last changed'),
    step_code: field.computed('string', codeViewSchema()).filterable().normalized(),
    status: field.computed('object', statusSchema),
    customer: field.of('object', { input: customerSchema }).required(),
    identifiers: field
      .of('object', { input: boundedRecord(text(1_000), 'Identifiers of the order elsewhere') })
      .default({}),
    metadata: field.of('object', { input: boundedRecord(z.unknown(), 'Anything else the channel sent') }).default({}),
    totals: field.of('object', { input: totalsSchema }),
    conditions: list(conditionSchema, 100),
    workflow_id: field
      .of('id', {
        input: objectIdSchema.meta({
          description: 'The workflow to follow (on create; default: the default workflow)',
        }),
        view: objectIdSchema,
      })
      .filterable(),
    workflow_code: field
      .of('string', {
        input: codeSchema({ description: 'The workflow to follow, by code (on create)', example: 'pedidos-loja' }),
        view: codeViewSchema(),
      })
      .filterable()
      .normalized(),
    workflow: field
      .of('object', {
        input: z.union([workflowRefSchema, Workflow.schemas.view]).meta({
          description:
            'The workflow to follow (on create): `{ "_id" }` or `{ "code" }`, or the whole workflow as an order shows it. The order copies the workflow named as it is then: steps and statuses sent here are never used',
        }),
        view: Workflow.schemas.view,
      })
      .listed(false)
      // Always shown: an order copies its workflow when it is created (the default one when none is named).
      .shown(),
    items_count: field
      .of('number', { input: z.number().int().min(0).max(1_000_000).meta({ format: 'int32' }) })
      .required(),
    sort_date: date('The date lists sort by (default: placed_at)'),
    sla: field.of('number', {
      input: z.number().min(0).max(1e9).meta({ description: 'Minutes the order may take from placed_at' }),
    }),
    sla_overdue_date: computedDate('placed_at + sla'),
    status_overdue_date: computedDate("When the current step's allocation time runs out"),
    logistic_id: field.of('id', { input: objectIdSchema }),
    last_interaction: field.computed('object', lastInteractionSchema),
    order_items: list(itemSchema, 1_000),
    order_trackings: field.computed('array', z.array(trackingSchema).max(10_000)).default([]).listed(false),
    order_payments: list(paymentSchema, 100),
    order_comments: field.computed('array', z.array(commentSchema).max(10_000)).default([]).listed(false),
    order_logistics: field.of('object', { input: logisticsSchema }),
    invoices: list(invoiceSchema, 100),
  },
  filters: {
    'customer.email': { type: 'string', column: 'customer_email' },
    'customer.document': { type: 'string', column: 'customer_document' },
    'channel.code': { type: 'string', column: 'channel_code' },
  },
});

/** An order as the API shows it. */
export type OrderView = z.infer<typeof Order.schemas.view>;
/** The writable fields of an order. */
export type OrderInput = z.infer<typeof Order.schemas.input>;
/** A move between statuses as the order keeps it. */
export type OrderTracking = z.infer<typeof trackingSchema>;
/** A comment as the order keeps it. */
export type OrderComment = z.infer<typeof commentSchema>;
/** A payment of an order. */
export type OrderPayment = z.infer<typeof paymentSchema>;
/** An invoice of an order. */
export type OrderInvoice = z.infer<typeof invoiceSchema>;

/** The body of a status move. */
export const orderMoveSchema = z
  .strictObject({
    status_code: codeSchema({ description: 'A status of the order’s workflow, by its code', example: 'paid' }),
    comment: z.string().trim().max(2_000).optional(),
  })
  .meta({ id: 'OrderStatusMove', description: 'Where the order moves' });

/** The body of a comment. */
export const orderCommentInputSchema = z
  .strictObject({ text: z.string().trim().min(1).max(10_000) })
  .meta({ id: 'OrderCommentInput', description: 'A comment to add' });

/** A payment to add. */
export const orderPaymentInputSchema = paymentSchema;
/** An invoice to add. */
export const orderInvoiceInputSchema = invoiceSchema;

/** A workflow as the API shows it → its proto message (`_id` → `id`, steps filled in). */
export function workflowToWire(workflow: Ided): Wired {
  return { ...idOut(workflow), steps: workflowStepsToWire(workflow.steps) };
}

/** A workflow message → the API's shape. */
export function workflowFromWire(message: Wired): Ided {
  return { ...idIn(message), steps: workflowStepsFromWire(message.steps) };
}

const mapIds = (items: unknown, f: (x: Record<string, unknown>) => Record<string, unknown>) =>
  ((items ?? []) as Record<string, unknown>[]).map(f);
const maybe = <T>(v: T | undefined | null, f: (x: T) => unknown) => (v === undefined || v === null ? v : f(v));

/** A customer whose address has its `coordinates`, empty when not given: proto has no absent list. */
function withCoordinates<C extends Record<string, unknown>>(customer: C): C {
  const address = customer.address as Record<string, unknown> | undefined;
  if (!address || typeof address !== 'object' || address.coordinates !== undefined) return customer;
  return { ...customer, address: { ...address, coordinates: [] } };
}

/** A customer whose address leaves out empty `coordinates` (how proto sends absent ones). */
function withoutEmptyCoordinates<C extends Record<string, unknown>>(customer: C): C {
  const address = customer.address as Record<string, unknown> | undefined;
  if (!address || typeof address !== 'object' || !Array.isArray(address.coordinates) || address.coordinates.length > 0)
    return customer;
  const { coordinates: _none, ...rest } = address;
  return { ...customer, address: rest };
}

/**
 * A channel as an order stores it: `_id` (as some channels send it) becomes `id`; when both are
 * given they are the same channel (the input schema refuses two).
 */
export function channelInput<C extends Record<string, unknown>>(channel: C): C {
  if (!('_id' in channel)) return channel;
  const { _id, ...rest } = channel;
  return (rest.id === undefined && _id !== undefined ? { ...rest, id: _id } : rest) as unknown as C;
}

/**
 * An order (or its input) as proto carries it: the nested `_id`s (customer, status, trackings,
 * comments, the workflow and its statuses) travel as `id`, and a customer's address has its
 * `coordinates` (an absent list cannot be encoded). Only the keys present are touched.
 */
export function orderToWire(order: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...order };
  if ('customer' in order) out.customer = maybe(order.customer as Ided, (c) => idOut(withCoordinates(c)));
  if ('status' in order) out.status = maybe(order.status as Ided, idOut);
  if ('workflow' in order)
    out.workflow = maybe(order.workflow as Ided, (w) => ('steps' in w ? workflowToWire(w) : idOut(w)));
  // The first entry comes from no status: null in REST, absent in proto.
  if ('order_trackings' in order)
    out.order_trackings = mapIds(order.order_trackings, ({ from_status_code, ...t }) =>
      idOut(from_status_code === null ? t : { ...t, from_status_code }),
    );
  if ('order_comments' in order) out.order_comments = mapIds(order.order_comments, idOut);
  return out;
}

/** An order message (or input) → the API's shape: the nested `id`s back to `_id`, empty address coordinates left out. */
export function orderFromWire(message: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...message };
  if ('customer' in message) out.customer = maybe(message.customer as Wired, (c) => idIn(withoutEmptyCoordinates(c)));
  if ('status' in message) out.status = maybe(message.status as Wired, idIn);
  if ('workflow' in message)
    out.workflow = maybe(message.workflow as Wired, (w) => ('steps' in w ? workflowFromWire(w) : idIn(w)));
  if ('order_trackings' in message)
    out.order_trackings = mapIds(message.order_trackings, (t) => ({
      ...idIn(t),
      from_status_code: t.from_status_code ?? null,
    }));
  if ('order_comments' in message) out.order_comments = mapIds(message.order_comments, idIn);
  return out;
}

/** The bulk upsert's body and answer (the same per-item results as the products' bulk upsert). */
export const orderBulkSchemas = {
  body: z
    .strictObject({
      items: z
        .array(
          z.record(z.string().max(100), z.unknown()).meta({
            description: 'An order input (OrderInput); checked on its own, its problems reported in its result',
          }),
        )
        .min(1)
        .max(BULK_MAX_ITEMS)
        .meta({ description: `Up to ${BULK_MAX_ITEMS} order inputs; each is upserted by code` }),
    })
    .meta({ id: 'OrderBulkUpsert', description: 'Orders to create or update by code, each on its own' }),
  result: z
    .strictObject({
      data: z
        .array(
          bulkItemResultSchema.extend({ status: z.enum(['created', 'updated', 'failed']) }).meta({
            id: 'OrderBulkItemResult',
            description: 'What became of one item of a bulk upsert, in the order of the request',
          }),
        )
        .max(BULK_MAX_ITEMS),
    })
    .meta({
      id: 'OrderBulkResult',
      description: 'The result of each item of a bulk upsert, in the order of the request',
    }),
};
