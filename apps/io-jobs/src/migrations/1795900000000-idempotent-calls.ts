import { idempotentCallsMigration } from '@pim/db';

/** The ledger of idempotent calls: a retried write is answered from its first run (see @pim/db). */
export const IdempotentCalls1795900000000 = idempotentCallsMigration(1795900000000);
