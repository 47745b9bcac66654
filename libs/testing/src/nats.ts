import { randomBytes } from 'node:crypto';
import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { DeliverPolicy, jetstream, jetstreamManager, StorageType } from '@nats-io/jetstream';

/** The NATS server tests use: TEST_NATS_URL, else NATS_URL, else the machine's local server. */
export function testNatsUrl(): string {
  return process.env.TEST_NATS_URL ?? process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
}

/** One message read back from a test stream. */
export interface StreamMessage {
  subject: string;
  /** The payload parsed as JSON, or the raw text when it is not JSON. */
  data: unknown;
  /** The Nats-Msg-Id header (the dedup key), if set. */
  msgId: string | undefined;
  seq: number;
}

/** A stream made for one test file; its subjects never overlap `pim.>` or another test's. */
export interface TestStream {
  name: string;
  /** Prefix to give publishers, e.g. `t1a2b3c4d5.`; the stream holds `${subjectPrefix}pim.>`. */
  subjectPrefix: string;
  url: string;
  nc: NatsConnection;
  /** Everything currently in the stream (optionally only subjects matching a filter), in order. */
  messages(subjectFilter?: string): Promise<StreamMessage[]>;
  destroy(): Promise<void>;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Creates a uniquely named JetStream stream (memory storage, 2 min dedup window) on the test server. */
export async function createTestStream(label = 'test'): Promise<TestStream> {
  const hex = randomBytes(5).toString('hex');
  const name = `PIM_EVENTS_T_${label
    .replace(/[^a-z0-9]/gi, '')
    .toUpperCase()
    .slice(0, 20)}_${hex}`;
  const subjectPrefix = `t${hex}.`;
  const url = testNatsUrl();
  const nc = await connect({ servers: url, name: `test-${name}` });
  const jsm = await jetstreamManager(nc);
  await jsm.streams.add({
    name,
    subjects: [`${subjectPrefix}pim.>`],
    storage: StorageType.Memory,
    duplicate_window: nanos(2 * 60_000),
    max_age: nanos(3_600_000),
  });
  const js = jetstream(nc);

  return {
    name,
    subjectPrefix,
    url,
    nc,
    async messages(subjectFilter?: string): Promise<StreamMessage[]> {
      const consumer = await js.consumers.get(name, {
        deliver_policy: DeliverPolicy.All,
        ...(subjectFilter ? { filter_subjects: subjectFilter } : {}),
      });
      const out: StreamMessage[] = [];
      let pending = (await consumer.info()).num_pending;
      while (pending > 0) {
        const batch = await consumer.fetch({ max_messages: Math.min(pending, 256), expires: 2_000 });
        let got = 0;
        for await (const m of batch) {
          got += 1;
          out.push({
            subject: m.subject,
            data: parse(m.string()),
            msgId: m.headers?.get('Nats-Msg-Id') || undefined,
            seq: m.seq,
          });
          pending = m.info.pending;
        }
        if (got === 0) break;
      }
      await consumer.delete().catch(() => undefined);
      return out;
    },
    async destroy(): Promise<void> {
      try {
        await jsm.streams.delete(name);
      } finally {
        await nc.close();
      }
    },
  };
}
