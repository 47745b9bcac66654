// A relay in its own process that SIGKILLs itself at a chosen point of a batch, so the crash
// tests see a real process death (no finally blocks, no rollback sent, sockets just drop).
// Run: node -r @swc-node/register libs/events/src/testing/relay-child.ts  (env below)
import 'reflect-metadata';
import { connect } from '@nats-io/transport-node';
import { createDataSource } from '@pim/db';
import { createLogger } from '@pim/logging';
import { OutboxEvent } from '../outbox.entity';
import { OutboxRelay } from '../outbox.relay';

const env = (key: string): string => {
  const value = process.env[key];
  if (value === undefined) throw new Error(`${key} is required`);
  return value;
};

async function main(): Promise<void> {
  const killAt = env('KILL_AT');
  if (killAt !== 'claimed' && killAt !== 'published') throw new Error('KILL_AT must be claimed or published');
  const ds = createDataSource({
    url: env('DATABASE_URL'),
    schema: env('DB_SCHEMA'),
    entities: [OutboxEvent],
    migrations: [],
    poolSize: 2,
  });
  await ds.initialize();
  const nc = await connect({ servers: env('NATS_URL') });
  const die = (ids: string[]): void => {
    process.stdout.write(`${JSON.stringify({ killAt, ids })}\n`);
    process.kill(process.pid, 'SIGKILL');
  };
  const relay = new OutboxRelay({
    dataSource: ds,
    nc,
    stream: env('STREAM'),
    subjectPrefix: env('SUBJECT_PREFIX'),
    logger: createLogger({ service: 'relay-child', level: 'warn' }),
    onClaimed: killAt === 'claimed' ? die : undefined,
    onPublished: killAt === 'published' ? die : undefined,
  });
  await relay.start();
}

main().catch((err) => {
  console.error(err);
  process.exit(2);
});
