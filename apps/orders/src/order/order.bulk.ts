import { ValidationError, toPimError } from '@pim/errors';
import type { RecordService } from '@pim/records';
import { BULK_MAX_ITEMS, type BulkItemResult, type OrderInput, type OrderView } from '@pim/resources';
import type { OrderEntity } from '../entities/order.entity';

/**
 * Bulk upsert of orders by `code`, the way channels push them: one set-based write of the record
 * engine (`writeMany`): each order created with its workflow and first status, or its fields
 * written onto the live order of that code, the workflows it names read once per call; a bad item
 * fails alone with its error object and the others are stored. Results come back in the items' order.
 */
export class OrderBulkUpsert {
  /** A fresh orders service per call (over a workflows link that answers each question once per call). */
  constructor(private readonly serviceFor: () => RecordService<OrderEntity, OrderView, OrderInput>) {}

  async upsert(items: unknown[]): Promise<BulkItemResult[]> {
    if (!Array.isArray(items) || items.length === 0 || items.length > BULK_MAX_ITEMS) {
      throw new ValidationError(`A bulk upsert takes 1 to ${BULK_MAX_ITEMS} orders`, {
        details: [{ field: 'items', message: `must hold 1 to ${BULK_MAX_ITEMS} orders` }],
      });
    }
    const outcomes = await this.serviceFor().writeMany(
      'upsert',
      items.map((input) => ({ input })),
    );
    return outcomes.map(({ index, status, view, error }) => {
      if (status === 'created' || status === 'updated') return { index, code: view!.code, _id: view!._id, status };
      const code = (items[index] as { code?: unknown } | null)?.code;
      // Links unwritten: the gateway writes its paths into them.
      const wire = (
        error ?? toPimError(new Error(`unexpected outcome ${status}`))
      ).toWire() as unknown as BulkItemResult['error'];
      return { index, ...(typeof code === 'string' ? { code } : {}), status: 'failed', error: wire };
    });
  }
}
