import type { DataSource } from 'typeorm';
import { pagedSealedStore, type SealedStore } from '@pim/secrets';
import { replaceWebhookSecrets, webhookSecretsPage } from './deliveries.repository';

/**
 * The webhooks' signing secrets (current and previous) as a store the re-seal loop of @pim/secrets
 * passes over: each webhook's secrets sealed again with the current operator key when one is in
 * clear or under an older key, written only if the webhook still holds what was read.
 */
export function webhookSecretsStore(ds: DataSource): SealedStore {
  return pagedSealedStore({
    name: 'webhooks.secret',
    page: (after, limit) => webhookSecretsPage(ds.manager, after, limit),
    values: (row) => [row.secret, row.previous_secret],
    write: (row, [secret, previous]) =>
      replaceWebhookSecrets(ds.manager, row, { _id: row._id, secret: secret!, previous_secret: previous }),
  });
}
