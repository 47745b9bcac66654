import type { DataSource } from 'typeorm';
import { ResealCounter, type SealedStore } from '@pim/secrets';
import { replaceWebhookSecrets, webhookSecretsPage } from './deliveries.repository';

const PAGE = 200;

/**
 * The webhooks' signing secrets (current and previous) as a store the re-seal loop of @pim/secrets
 * passes over: each webhook's secrets sealed again with the current operator key when one is in
 * clear or under an older key, written only if the webhook still holds what was read.
 */
export function webhookSecretsStore(ds: DataSource): SealedStore {
  return {
    name: 'webhooks.secret',
    async reseal(keyring) {
      const counter = new ResealCounter(keyring);
      let after = '';
      for (;;) {
        const page = await webhookSecretsPage(ds.manager, after, PAGE);
        for (const row of page) {
          const { values, changed } = counter.reseal(row._id, [row.secret, row.previous_secret]);
          const next = { _id: row._id, secret: values[0]!, previous_secret: values[1] };
          const written = changed ? await replaceWebhookSecrets(ds.manager, row, next) : true;
          counter.done([row.secret, row.previous_secret], values, written);
        }
        if (page.length < PAGE) return counter.tally;
        after = page[page.length - 1]._id;
      }
    },
  };
}
