import { CreatePublisherSchema1795624061885 } from './1795624061885-create-publisher-schema';
import { CreateChannelsAndPublications1795624157686 } from './1795624157686-create-channels-and-publications';
import { CreatePublicationBatches1795625601358 } from './1795625601358-create-publication-batches';
import { AddBatchRunAs1795701000000 } from './1795701000000-add-batch-run-as';
import { AddTraceContext1795702000000 } from './1795702000000-add-trace-context';
import { OutboxDeadLetters1795800000000 } from './1795800000000-outbox-dead-letters';
import { IdempotentCalls1795900000000 } from './1795900000000-idempotent-calls';
import { AdvertisementsFromPublications1796000000000 } from './1796000000000-advertisements-from-publications';

/** Every migration of the publisher schema, oldest first. */
export const migrations = [
  CreatePublisherSchema1795624061885,
  CreateChannelsAndPublications1795624157686,
  CreatePublicationBatches1795625601358,
  AddBatchRunAs1795701000000,
  AddTraceContext1795702000000,
  OutboxDeadLetters1795800000000,
  IdempotentCalls1795900000000,
  AdvertisementsFromPublications1796000000000,
];
