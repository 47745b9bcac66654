import { connect, nanos, type NatsConnection } from '@nats-io/transport-node';
import { jetstreamManager, StorageType, type StreamConfig } from '@nats-io/jetstream';

/** The production stream every app publishes its events to. */
export const EVENTS_STREAM = 'PIM_EVENTS';

/** The subjects of the production stream. */
export const EVENTS_SUBJECTS = ['pim.>'];

/** How the events stream is created. */
export interface EnsureStreamOptions {
  name: string;
  subjects: string[];
  /** How long a msgID is remembered for dedup; at least 2 minutes. Default 5 minutes. */
  duplicateWindowMs?: number;
  /** How long events stay in the stream. Default 7 days. */
  maxAgeMs?: number;
  /** Replicas in a NATS cluster. Default 1. */
  replicas?: number;
}

const MIN_DUPLICATE_WINDOW_MS = 2 * 60_000;
const DEFAULT_DUPLICATE_WINDOW_MS = 5 * 60_000;
const DEFAULT_MAX_AGE_MS = 7 * 24 * 3_600_000;
// JetStream API error code for "stream name already in use with a different configuration".
const STREAM_NAME_EXISTS = 10058;
const STREAM_NOT_FOUND = 10059;

function apiCode(err: unknown): number | undefined {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'number' ? code : undefined;
}

/**
 * Creates the stream (file storage, dedup window, max age) or brings an existing one up to
 * date. Subjects are merged, never removed, so apps that each ensure the stream don't undo
 * each other. Safe to call from many replicas at once.
 */
export async function ensureStream(
  natsUrlOrConnection: string | NatsConnection,
  opts: EnsureStreamOptions,
): Promise<void> {
  const duplicateWindowMs = opts.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS;
  if (duplicateWindowMs < MIN_DUPLICATE_WINDOW_MS) {
    throw new RangeError(`duplicateWindowMs must be at least ${MIN_DUPLICATE_WINDOW_MS}`);
  }
  const maxAgeMs = opts.maxAgeMs ?? DEFAULT_MAX_AGE_MS;
  const owned = typeof natsUrlOrConnection === 'string';
  const nc = owned
    ? await connect({ servers: natsUrlOrConnection, name: `ensure-stream-${opts.name}` })
    : natsUrlOrConnection;
  try {
    const jsm = await jetstreamManager(nc);
    const wanted: Partial<StreamConfig> & { name: string } = {
      name: opts.name,
      subjects: opts.subjects,
      storage: StorageType.File,
      duplicate_window: nanos(duplicateWindowMs),
      max_age: nanos(maxAgeMs),
      num_replicas: opts.replicas ?? 1,
    };
    const update = async (): Promise<void> => {
      const { config } = await jsm.streams.info(opts.name);
      const subjects = [...new Set([...(config.subjects ?? []), ...opts.subjects])];
      const same =
        subjects.length === (config.subjects ?? []).length &&
        config.duplicate_window === wanted.duplicate_window &&
        config.max_age === wanted.max_age &&
        config.num_replicas === wanted.num_replicas;
      if (same) return;
      // Storage cannot change on a live stream, so the existing one is kept.
      await jsm.streams.update(opts.name, {
        ...config,
        subjects,
        duplicate_window: wanted.duplicate_window,
        max_age: wanted.max_age,
        num_replicas: wanted.num_replicas,
      });
    };
    try {
      await jsm.streams.info(opts.name);
    } catch (err) {
      if (apiCode(err) !== STREAM_NOT_FOUND) throw err;
      try {
        await jsm.streams.add(wanted);
        return;
      } catch (addErr) {
        // Another replica created it first with other settings; fall through to update.
        if (apiCode(addErr) !== STREAM_NAME_EXISTS) throw addErr;
      }
    }
    await update();
  } finally {
    if (owned) await nc.close();
  }
}
