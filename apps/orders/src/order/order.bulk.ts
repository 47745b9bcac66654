import { ValidationError, toPimError } from '@pim/errors';
import type { RecordService } from '@pim/records';
import { BULK_MAX_ITEMS, type BulkItemResult, type OrderInput, type OrderView } from '@pim/resources';
import type { OrderEntity } from '../entities/order.entity';

/** Items upserted at once (each in its own transaction). */
const IN_FLIGHT = 8;

/**
 * Bulk upsert of orders by `code`, the way channels push them: each item is an upsert of the
 * record engine in its own transaction (the workflows it names read once per call) (created with its workflow and first status, or its fields
 * written onto the live order of that code), so a bad item fails alone with its error object and
 * the others are stored. Results come back in the items' order.
 */
export class OrderBulkUpsert {
  /** A fresh orders service per call (over a workflows link that answers each question once per call). */
  constructor(private readonly serviceFor: () => RecordService<OrderEntity, OrderView, OrderInput>) {}

  async upsert(items: unknown[]): Promise<BulkItemResult[]> {
    const service = this.serviceFor();
    if (!Array.isArray(items) || items.length === 0 || items.length > BULK_MAX_ITEMS) {
      throw new ValidationError(`A bulk upsert takes 1 to ${BULK_MAX_ITEMS} orders`, {
        details: [{ field: 'items', message: `must hold 1 to ${BULK_MAX_ITEMS} orders` }],
      });
    }
    const results: BulkItemResult[] = new Array(items.length);
    // Items naming the same code run one after the other, in the order given; other codes run alongside.
    const groups = new Map<string, number[]>();
    items.forEach((item, index) => {
      const code = (item as { code?: unknown })?.code;
      const key = typeof code === 'string' ? `code:${code}` : `item:${index}`;
      groups.set(key, [...(groups.get(key) ?? []), index]);
    });
    const queue = [...groups.values()];
    const one = async (index: number) => {
      const item = items[index];
      const code = typeof (item as { code?: unknown })?.code === 'string' ? (item as { code: string }).code : undefined;
      try {
        const { view, created } = await service.upsert(item);
        results[index] = { index, code: view.code, _id: view._id, status: created ? 'created' : 'updated' };
      } catch (err) {
        // Links unwritten: the gateway writes its paths into them.
        const error = toPimError(err).toWire() as unknown as BulkItemResult['error'];
        results[index] = { index, ...(code !== undefined ? { code } : {}), status: 'failed', error };
      }
    };
    const worker = async () => {
      for (let group = queue.shift(); group; group = queue.shift()) for (const index of group) await one(index);
    };
    await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, queue.length) }, worker));
    return results;
  }
}
