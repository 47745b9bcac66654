import { CreateWebhooks1763827200000 } from './1763827200000-create-webhooks';
import { Deliveries1764547200000 } from './1764547200000-deliveries';
import { OutboxEnvelopeJson1765238400002 } from './1765238400002-outbox-envelope-json';
import { InboxEnvelopeOnlyWhenDelivered1765238400003 } from './1765238400003-inbox-envelope-only-when-delivered';
import { OutboxDeadLetters1795800000000 } from './1795800000000-outbox-dead-letters';
import { IdempotentCalls1795900000000 } from './1795900000000-idempotent-calls';

/** Every migration of the webhooks schema, oldest first. */
export const migrations = [
  CreateWebhooks1763827200000,
  Deliveries1764547200000,
  OutboxEnvelopeJson1765238400002,
  InboxEnvelopeOnlyWhenDelivered1765238400003,
  OutboxDeadLetters1795800000000,
  IdempotentCalls1795900000000,
];
