import { CreatePublisherSchema1795624061885 } from './1795624061885-create-publisher-schema';
import { CreateChannelsAndPublications1795624157686 } from './1795624157686-create-channels-and-publications';
import { CreatePublicationBatches1795625601358 } from './1795625601358-create-publication-batches';

/** Every migration of the publisher schema, oldest first. */
export const migrations = [
  CreatePublisherSchema1795624061885,
  CreateChannelsAndPublications1795624157686,
  CreatePublicationBatches1795625601358,
];
