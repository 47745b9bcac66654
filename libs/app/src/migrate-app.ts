import 'reflect-metadata';
import { migrate, type AppDataSourceOptions } from '@pim/db';
import { createLogger } from '@pim/logging';
import { packageVersion } from './version';

/** An app's migrations entry: its name, folder, config and schema. */
export interface MigrateSpec {
  name: string;
  /** The folder of the app's `migrate.ts` (`__dirname`), for the version its log lines carry. */
  dir: string;
  config: () => { LOG_LEVEL: string; DATABASE_URL: string };
  dataSource: (url: string) => AppDataSourceOptions;
}

/** Runs the app schema's pending migrations (each in its own transaction) and exits: 0 done, 1 failed. */
export function migrateApp(spec: MigrateSpec): Promise<void> {
  const service = `${spec.name}-migrate`;
  const run = async () => {
    const config = spec.config();
    const logger = createLogger({ service, version: packageVersion(spec.dir), level: config.LOG_LEVEL });
    const done = await migrate(spec.dataSource(config.DATABASE_URL));
    logger.info({ migrations: done }, done.length ? `applied ${done.length} migration(s)` : 'schema up to date');
  };
  return run().then(
    () => process.exit(0),
    (err: unknown) => {
      const message = String((err as Error)?.message ?? err);
      console.error(JSON.stringify({ level: 'fatal', service, msg: 'migration failed', err: message }));
      process.exit(1);
    },
  );
}
