import type { DataSource, EntityManager } from 'typeorm';
import type { EventEnvelope } from '@pim/events';
import { newId } from '@pim/ids';
import { insertDeliveries, insertInbox, wakeDeliveryWorkers, webhooksTaking } from './deliveries.repository';

/** What recording a batch of events did. */
export interface RecordResult {
  /** Events new to the inbox. */
  recorded: number;
  /** Events already in the inbox (a redelivery): they created nothing. */
  duplicates: number;
  /** Deliveries created. */
  deliveries: number;
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
    const webhooks = await webhooksTaking(m, collections, onlyWebhookId);
    const taken = new Set(webhooks.map((w) => w.collection));
    const wanted = (e: EventEnvelope) => onlyWebhookId !== undefined || taken.has(e.collection);
    const inserted = await insertInbox(
      m,
      events.map((e) => ({
        id: e.id,
        type: e.type,
        collection: e.collection,
        source: e.source,
        occurred_at: e.occurred_at,
        request_id: e.request_id ?? null,
        envelope: wanted(e) ? e : null,
      })),
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
      await insertDeliveries(m, rows);
      await wakeDeliveryWorkers(m);
    }
    return { recorded: inserted.length, duplicates: seen - inserted.length, deliveries: rows.length };
  }
}
