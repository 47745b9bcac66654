import type { DataSource, EntityManager } from 'typeorm';
import type { EventEnvelope } from '@pim/events';
import { isId, newId } from '@pim/ids';
import { DELIVERIES_CHANNEL } from './delivery.queue';

/** What recording a batch of events did. */
export interface RecordResult {
  /** Events new to the inbox. */
  recorded: number;
  /** Events already in the inbox (a redelivery): they created nothing. */
  duplicates: number;
  /** Deliveries created. */
  deliveries: number;
}

// jsonb cannot hold U+0000; an event carrying one is recorded without it rather than not at all.
const withoutNul = (_key: string, value: unknown) =>
  typeof value === 'string' ? value.replaceAll('\u0000', '') : value;

/** Whether a parsed message has what the fan-out needs of an envelope. */
export function isEnvelope(v: unknown): v is EventEnvelope {
  const e = v as Partial<EventEnvelope> | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    isId(e.id) &&
    typeof e.type === 'string' &&
    typeof e.collection === 'string' &&
    typeof e.source === 'string' &&
    typeof e.occurred_at === 'string' &&
    !Number.isNaN(Date.parse(e.occurred_at))
  );
}

/**
 * Records events in the inbox and creates their deliveries, in one transaction: an event already
 * in the inbox (keyed by event id) creates nothing, a new one gets one delivery per enabled,
 * live webhook with a URL whose collection is the event's. Workers are woken at commit.
 */
export class FanoutRecorder {
  constructor(private readonly ds: DataSource) {}

  /** Records a batch; the caller acknowledges the messages only after this resolves. */
  async record(events: EventEnvelope[]): Promise<RecordResult> {
    const unique = [...new Map(events.map((e) => [e.id, e])).values()];
    if (unique.length === 0) return { recorded: 0, duplicates: 0, deliveries: 0 };
    return this.ds.transaction((m) => this.recordIn(m, unique, events.length));
  }

  /** Records inside the caller's transaction (the test-event path uses it with its own checks). */
  async recordIn(
    m: EntityManager,
    events: EventEnvelope[],
    seen = events.length,
    onlyWebhookId?: string,
  ): Promise<RecordResult> {
    // The webhooks first: an event no webhook takes is recorded without its envelope (the id alone
    // makes a redelivered copy a duplicate); only deliveries need the payload.
    const collections = [...new Set(events.map((e) => e.collection))];
    const webhooks: { _id: string; collection: string }[] = onlyWebhookId
      ? await m.query(`SELECT "_id", collection FROM webhooks WHERE "_id" = $1`, [onlyWebhookId])
      : await m.query(
          `SELECT "_id", collection FROM webhooks WHERE collection = ANY($1) AND enabled AND NOT deleted AND url IS NOT NULL`,
          [collections],
        );
    const taken = new Set(webhooks.map((w) => w.collection));
    const wanted = (e: EventEnvelope) => onlyWebhookId !== undefined || taken.has(e.collection);
    const inserted: {
      event_id: string;
      collection: string;
      type: string;
      occurred_at: Date;
      request_id: string | null;
    }[] = await m.query(
      `INSERT INTO inbox (event_id, type, collection, source, occurred_at, request_id, envelope, received_at)
       SELECT e.id, e.type, e.collection, e.source, e.occurred_at, e.request_id, e.envelope, now()
         FROM jsonb_to_recordset($1::jsonb) AS e(id char(24), type text, collection text, source text, occurred_at timestamptz, request_id text, envelope jsonb)
       ON CONFLICT (event_id) DO NOTHING
       RETURNING event_id, collection, type, occurred_at, request_id`,
      [
        JSON.stringify(
          events.map((e) => ({
            id: e.id,
            type: e.type,
            collection: e.collection,
            source: e.source,
            occurred_at: e.occurred_at,
            request_id: e.request_id ?? null,
            envelope: wanted(e) ? e : null,
          })),
          withoutNul,
        ),
      ],
    );
    if (inserted.length === 0) return { recorded: 0, duplicates: seen, deliveries: 0 };
    const rows = inserted.flatMap((i) =>
      webhooks
        .filter((w) => onlyWebhookId !== undefined || w.collection === i.collection)
        .map((w) => ({
          id: newId(),
          webhook_id: w._id,
          event_id: i.event_id,
          event_type: i.type,
          request_id: i.request_id,
          event_occurred_at: i.occurred_at,
        })),
    );
    if (rows.length > 0) {
      await m.query(
        `INSERT INTO deliveries ("_id", webhook_id, event_id, event_type, status, attempts, retry_base, next_attempt_at, request_id, event_occurred_at, created_at, updated_at)
         SELECT d.id, d.webhook_id, d.event_id, d.event_type, 'pending', 0, 0, now(), d.request_id, d.event_occurred_at, now(), now()
           FROM jsonb_to_recordset($1::jsonb) AS d(id char(24), webhook_id char(24), event_id char(24), event_type text, request_id text, event_occurred_at timestamptz)
         ON CONFLICT (event_id, webhook_id) DO NOTHING`,
        [JSON.stringify(rows)],
      );
      await m.query("SELECT pg_notify($1, '')", [DELIVERIES_CHANNEL]);
    }
    return { recorded: inserted.length, duplicates: seen - inserted.length, deliveries: rows.length };
  }
}
