import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { ValidationError, fromZodError } from '@pim/errors';
import { newId } from '@pim/ids';
import { currentContext } from '@pim/logging';
import type { RecordService } from '@pim/records';
import {
  orderInvoiceInputSchema,
  orderPaymentInputSchema,
  type OrderInput,
  type OrderInvoice,
  type OrderView,
} from '@pim/resources';
import type { OrderEntity } from '../entities/order.entity';
import { countOpenOrders } from '../repositories/orders.repository';
import { moveTo, placeToMoveTo } from './order.moves';

type Service = RecordService<OrderEntity, OrderView, OrderInput>;

const MAX_COMMENTS = 10_000;
const MAX_APPENDED = 100;

/** The caller as the order records it. */
const actor = () => currentContext()?.actor ?? {};

const LABELS = { order_comments: 'comment', order_payments: 'payment', invoices: 'invoice' } as const;

/** A comment as the order keeps it (its text as written: 1 to 10,000 characters). */
const commentSchema = z.strictObject({
  _id: z.string(),
  text: z.string().min(1, 'must not be empty').max(10_000),
  by: z.record(z.string(), z.string()),
  at: z.string(),
});

/** A 400 when an order's list is full. */
function full(list: string, max: number): ValidationError {
  return new ValidationError(`The order already has ${max} ${list}`, {
    title: 'List full',
    details: [{ field: list, message: `holds at most ${max}` }],
  });
}

/**
 * What happens to an order besides writes of its fields: status moves (with their
 * `orders.status_changed` event beside `orders.updated`), and comments, payments and invoices
 * appended — each under the order's row lock and If-Match, in one transaction with its events.
 */
export class OrderActions {
  constructor(
    private readonly service: Service,
    private readonly ds: DataSource,
  ) {}

  /** Moves the order to a status of its workflow (allowed moves only; a final order never moves). */
  async move(id: string, statusCode: string, comment: string | undefined, expectedVersion?: number) {
    return (
      await this.service.mutate(id, expectedVersion, (order) => {
        const move = moveTo(order, placeToMoveTo(order, statusCode), actor(), comment, new Date());
        return { before: [{ action: 'status_changed', data: move.event }] };
      })
    ).view;
  }

  /** Appends a comment by the caller. */
  async comment(id: string, text: string, expectedVersion?: number) {
    const a = actor();
    const by = { ...(a.user_id ? { user_id: a.user_id } : {}), ...(a.user_name ? { user_name: a.user_name } : {}) };
    const comment = { _id: newId(), text: text.trim(), by, at: new Date().toISOString() };
    return this.append(id, 'order_comments', MAX_COMMENTS, comment, commentSchema, expectedVersion);
  }

  /** Appends a payment. */
  async payment(id: string, raw: unknown, expectedVersion?: number) {
    return this.append(id, 'order_payments', MAX_APPENDED, raw, orderPaymentInputSchema, expectedVersion);
  }

  /** Appends an invoice; the first one also gives the order its `invoice_number` when it has none. */
  async invoice(id: string, raw: unknown, expectedVersion?: number) {
    return this.append(id, 'invoices', MAX_APPENDED, raw, orderInvoiceInputSchema, expectedVersion, (order, added) => {
      if (order.invoice_number) return;
      order.invoice_number = (added as OrderInvoice).number;
      // The search text holds the searchable fields, one per line: code, external code, invoice number.
      order.search_text = [order.code, order.external_code, order.invoice_number].join('\n');
    });
  }

  /** Checks an element against its schema and appends it to one of the order's lists (at most `max`). */
  private async append(
    id: string,
    list: 'order_comments' | 'order_payments' | 'invoices',
    max: number,
    raw: unknown,
    schema: z.ZodType,
    expectedVersion: number | undefined,
    also?: (order: OrderEntity, added: unknown) => void,
  ) {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw fromZodError(parsed.error, { title: `Invalid ${LABELS[list]}` });
    const { view } = await this.service.mutate(id, expectedVersion, (order) => {
      const items = (order[list] ?? []) as unknown[];
      if (items.length >= max) throw full(list, max);
      order[list] = [...items, parsed.data] as never;
      also?.(order, parsed.data);
    });
    return view;
  }

  /** How many live orders that are not final follow a workflow. */
  openOrders(workflowId: string): Promise<number> {
    return countOpenOrders(this.ds, workflowId);
  }
}
