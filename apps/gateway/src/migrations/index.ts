import { CreateGateway1763830800000 } from './1763830800000-create-gateway';
import { ApiKeyChangesAndUnloggedLimits1765152000000 } from './1765152000000-api-key-changes-and-unlogged-limits';
import { IdempotencyFirstClaim1795900000000 } from './1795900000000-idempotency-first-claim';

/** Every migration of the gateway schema, oldest first. */
export const migrations = [
  CreateGateway1763830800000,
  ApiKeyChangesAndUnloggedLimits1765152000000,
  IdempotencyFirstClaim1795900000000,
];
