import type { PublicationInput, PublicationView } from '@pim/resources';
import type { RecordService } from '@pim/records';
import { currentContext, traceContextOf } from '@pim/logging';
import type { PublicationEntity } from '../entities/publication.entity';
import type { PublicationsRepository } from '../repositories/publications.repository';
import { publicationNotNow } from './publication.resource';
import { track } from '../entities/publication.tracking';

/** Moves a caller asks of a publication: retry. */
export class PublicationMoves {
  constructor(
    private readonly publications: RecordService<PublicationEntity, PublicationView, PublicationInput>,
    private readonly repository: () => PublicationsRepository,
  ) {}

  /**
   * Puts a failed publication back to ready_to_publish, due now, with a fresh retry schedule; it
   * sends the snapshot it was created with. Refused (409) from any other state, and when a newer
   * publication of the same product and channel exists (the channel would get older data after newer).
   */
  async retry(id: string, expectedVersion?: number): Promise<PublicationView> {
    const { view } = await this.publications.mutate(id, expectedVersion, async (record, m) => {
      if (record.status !== 'failed')
        throw publicationNotNow(record, 'only a failed publication is retried', ['failed'], 'ready_to_publish');
      if (await this.repository().hasNewer(m, record.advertisement_id, record._id))
        throw publicationNotNow(
          record,
          'a newer publication of this product on this channel exists; retry that one, or create a new one',
          ['failed'],
          'ready_to_publish',
        );
      const by = currentContext()?.actor?.user_name;
      Object.assign(record, {
        status: 'ready_to_publish',
        attempts: 0,
        next_attempt_at: new Date(),
        outcome_at: null,
        product_sync_due: false,
        // Its next attempts are in the trace of the retry that asked for them.
        trace_context: traceContextOf() ?? null,
      });
      track(
        record,
        'PENDING',
        `Retried${by ? ` by ${by}` : ''}: waiting to be sent to the channel '${record.channel_code}'`,
      );
      await this.repository().notify(m);
      return { event: 'status_changed' };
    });
    return view;
  }
}
