import { CreateWebhooks1763827200000 } from './1763827200000-create-webhooks';
import { Deliveries1764547200000 } from './1764547200000-deliveries';

/** Every migration of the webhooks schema, oldest first. */
export const migrations = [CreateWebhooks1763827200000, Deliveries1764547200000];
