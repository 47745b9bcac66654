import { CreateWebhooks1763827200000 } from './1763827200000-create-webhooks';

/** Every migration of the webhooks schema, oldest first. */
export const migrations = [CreateWebhooks1763827200000];
