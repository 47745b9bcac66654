// Drift check: for every app with a schema, run its migrations on a fresh database and fail when
// the entities still need SQL that no migration provides (an entity changed without a migration).
import 'reflect-metadata';
import { detectDrift, type AppDataSourceOptions } from '@pim/db';
import { createTestDatabase } from '@pim/testing';
import { dataSourceOptions as webhooks } from '../../apps/webhooks/src/data-source';
import { dataSourceOptions as gateway } from '../../apps/gateway/src/data-source';
import { dataSourceOptions as catalog } from '../../apps/catalog/src/data-source';
import { dataSourceOptions as workflow } from '../../apps/workflow/src/data-source';

import { dataSourceOptions as orders } from '../../apps/orders/src/data-source';
import { dataSourceOptions as ioJobs } from '../../apps/io-jobs/src/data-source';
import { dataSourceOptions as publisher } from '../../apps/publisher/src/data-source';
/** Apps that own a schema, by name. A new app with a schema joins with one line. */
export const schemaOwners: Record<string, (url: string) => AppDataSourceOptions> = {
  webhooks,
  gateway,
  catalog,
  workflow,
  orders,
  ioJobs,
  publisher,
};

async function main(): Promise<void> {
  let failed = false;
  for (const [app, options] of Object.entries(schemaOwners)) {
    const db = await createTestDatabase(`drift_${app}`);
    try {
      const drift = await detectDrift(options(db.url));
      if (drift.length === 0) {
        console.log(`db:drift ${app}: entities match migrations`);
      } else {
        failed = true;
        console.error(
          `db:drift ${app}: entities differ from migrations; add a migration that runs:\n  ${drift.join(';\n  ')};`,
        );
      }
    } finally {
      await db.drop();
    }
  }
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(`db:drift failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
});
