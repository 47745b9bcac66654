import type { DataSource } from 'typeorm';
import { recordEvent } from '@pim/events';
import { ValidationError, fromZodError } from '@pim/errors';
import { newId } from '@pim/ids';
import { currentContext } from '@pim/logging';
import type { RecordService } from '@pim/records';
import {
  orderInvoiceInputSchema,
  orderPaymentInputSchema,
  type OrderComment,
  type OrderInput,
  type OrderInvoice,
  type OrderPayment,
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
      await this.service.mutate(id, expectedVersion, async (order, m) => {
        const move = moveTo(order, placeToMoveTo(order, statusCode), actor(), comment, new Date());
        const ctx = currentContext();
        await recordEvent(m, {
          source: 'orders',
          collection: 'orders',
          action: 'status_changed',
          data: move.event,
          actor: ctx?.actor,
          requestId: ctx?.requestId,
        });
      })
    ).view;
  }

  /** Appends a comment by the caller. */
  async comment(id: string, text: string, expectedVersion?: number) {
    const body = text.trim();
    if (body.length === 0 || body.length > 10_000)
      throw new ValidationError('A comment needs 1 to 10,000 characters', {
        details: [{ field: 'text', message: 'must be 1 to 10,000 characters' }],
      });
    return (
      await this.service.mutate(id, expectedVersion, (order) => {
        const comments = (order.order_comments ?? []) as OrderComment[];
        if (comments.length >= MAX_COMMENTS) throw full('order_comments', MAX_COMMENTS);
        const a = actor();
        const by = { ...(a.user_id ? { user_id: a.user_id } : {}), ...(a.user_name ? { user_name: a.user_name } : {}) };
        order.order_comments = [...comments, { _id: newId(), text: body, by, at: new Date().toISOString() }];
      })
    ).view;
  }

  /** Appends a payment. */
  async payment(id: string, raw: unknown, expectedVersion?: number) {
    const parsed = orderPaymentInputSchema.safeParse(raw);
    if (!parsed.success) throw fromZodError(parsed.error, { title: 'Invalid payment' });
    return (
      await this.service.mutate(id, expectedVersion, (order) => {
        const payments = (order.order_payments ?? []) as OrderPayment[];
        if (payments.length >= MAX_APPENDED) throw full('order_payments', MAX_APPENDED);
        order.order_payments = [...payments, parsed.data];
      })
    ).view;
  }

  /** Appends an invoice; the first one also gives the order its `invoice_number` when it has none. */
  async invoice(id: string, raw: unknown, expectedVersion?: number) {
    const parsed = orderInvoiceInputSchema.safeParse(raw);
    if (!parsed.success) throw fromZodError(parsed.error, { title: 'Invalid invoice' });
    return (
      await this.service.mutate(id, expectedVersion, (order) => {
        const invoices = (order.invoices ?? []) as OrderInvoice[];
        if (invoices.length >= MAX_APPENDED) throw full('invoices', MAX_APPENDED);
        order.invoices = [...invoices, parsed.data];
        if (!order.invoice_number) {
          order.invoice_number = parsed.data.number;
          order.search_text = [order.code, order.external_code, order.invoice_number].join('\n');
        }
      })
    ).view;
  }

  /** How many live orders that are not final follow a workflow. */
  openOrders(workflowId: string): Promise<number> {
    return countOpenOrders(this.ds, workflowId);
  }
}
