import 'reflect-metadata';
import { migrate } from '@pim/db';
import { createLogger } from '@pim/logging';
import { readConfig } from './config';
import { dataSourceOptions } from './data-source';

/** Runs the gateway schema's pending migrations and exits (0 done, 1 failed). */
async function run(): Promise<void> {
  const config = readConfig();
  const logger = createLogger({ service: 'gateway-migrate', level: config.LOG_LEVEL });
  const done = await migrate(dataSourceOptions(config.DATABASE_URL));
  logger.info({ migrations: done }, done.length ? `applied ${done.length} migration(s)` : 'schema up to date');
}

run().then(
  () => process.exit(0),
  (err) => {
    console.error(
      JSON.stringify({
        level: 'fatal',
        service: 'gateway-migrate',
        msg: 'migration failed',
        err: String(err?.message ?? err),
      }),
    );
    process.exit(1);
  },
);
