import type { EntityManager } from 'typeorm';
import { lockStrings } from '@pim/db';
import type { RecordEntity } from './record.entity';
import type { RecordHooks } from './record.resource';

/**
 * Hooks for a boolean column that at most one live record of a collection holds (`default` of
 * workflows): a write that sets it clears it on the record holding it, in the same transaction,
 * and that record gets its `updated` event. Every write of the collection first takes one advisory
 * lock, so racing writes set it one after the other and exactly one holder remains; a partial
 * unique index (`… WHERE "<column>" = true AND deleted = false`) backs the rule in the database.
 */
export function exclusiveFlag<E extends RecordEntity>(
  entity: new () => E,
  column: keyof E & string,
  lockName: string,
): Required<Pick<RecordHooks<E>, 'lock' | 'beforeWrite'>> {
  return {
    lock: (m: EntityManager) => lockStrings(m, lockName, [column]),
    async beforeWrite(m, next, _prev, emit) {
      if (next[column] !== true) return;
      const holders = await m
        .createQueryBuilder(entity, 't')
        .where(`t."${column}" = true AND t.deleted = false AND t._id <> :id`, { id: next._id })
        .orderBy('t._id')
        .setLock('pessimistic_write')
        .getMany();
      const now = new Date();
      for (const holder of holders) {
        Object.assign(holder, { [column]: false, version: holder.version + 1, updated_at: now });
        await m.save(entity, holder as never);
        await emit('updated', holder);
      }
    },
  };
}
