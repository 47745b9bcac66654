import type { DataSourceOptions, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { RawJson, copyColumnsOf, copyInto, stringifyWithRaw } from '@pim/db';
import { InternalError } from '@pim/errors';
import { isId, newId } from '@pim/ids';
import { currentContext, traceContextOf, type StoredTraceContext } from '@pim/logging';
import { buildEnvelope, subjectFor, type EventActor, type EventEnvelope } from './event.envelope';
import { OutboxEvent } from './outbox.entity';

/** The Postgres NOTIFY channel a relay listens on for the outbox of one schema. */
export function outboxChannel(schema: string): string {
  return `pim_outbox_${schema}`;
}

/** The schema a DataSource's tables live in (the outbox's schema). */
export function schemaOf(options: DataSourceOptions): string {
  return 'schema' in options && typeof options.schema === 'string' ? options.schema : 'public';
}

/** One event to record. */
export interface RecordEventInput<T = unknown> {
  /** The app that owns the changed resource, e.g. "catalog". */
  source: string;
  /** The interface's collection name, e.g. "products". */
  collection: string;
  /** "created", "updated", "deleted" or a collection-specific action (docs/platform/rules.md: events). */
  action: string;
  /** The resource as the REST API shows it (after the change; the last state for deleted). */
  data: T;
  /** Defaults to the actor of the current request context, else null. */
  actor?: EventActor | null;
  /** Defaults to the request id of the current request context. */
  requestId?: string;
}

/** An event for recordEvents, which may carry its data already serialized (a stored rendering). */
export interface RecordEventsInput<T = unknown> extends RecordEventInput<T> {
  /** `data` as JSON text; when given it is written as it is instead of serializing `data` again. */
  dataJson?: string;
}

/** The envelope as JSON text with `data` replaced by already serialized JSON. */
export function envelopeJsonWith(envelope: EventEnvelope, dataJson: string): string {
  return stringifyWithRaw({ ...envelope, data: new RawJson(dataJson) });
}

/**
 * Writes an event into the outbox inside the caller's transaction, so the event exists if and
 * only if the change commits, and wakes the relays (NOTIFY is delivered at commit).
 */
export async function recordEvent<T>(manager: EntityManager, e: RecordEventInput<T>): Promise<EventEnvelope<T>> {
  checkOutbox(manager, 'recordEvent');
  const occurredAt = new Date();
  const envelope = envelopeOf(e, occurredAt, traceContextOf());
  await manager.insert(OutboxEvent, {
    id: envelope.id,
    type: envelope.type,
    subject: subjectFor('', e.source, e.collection, e.action),
    // TypeORM's deep-partial type cannot describe `data: unknown`; the value is plain JSON.
    envelope: envelope as QueryDeepPartialEntity<EventEnvelope>,
    occurred_at: occurredAt,
    record_id: recordIdOf(e.data),
  });
  await notifyRelays(manager);
  return envelope;
}

const OUTBOX_COPY_COLUMNS = ['id', 'type', 'subject', 'envelope', 'occurred_at', 'record_id'];

/**
 * Writes many events into the outbox inside the caller's transaction with one COPY (a bulk
 * write's events: no multi-row INSERT to build and parse), and wakes the relays once. All of
 * them share one `occurred_at`, the moment of the write.
 */
export async function recordEvents<T>(
  manager: EntityManager,
  events: RecordEventsInput<T>[],
): Promise<EventEnvelope<T>[]> {
  checkOutbox(manager, 'recordEvents');
  if (events.length === 0) return [];
  const occurredAt = new Date();
  const trace = traceContextOf();
  const envelopes = events.map((e) => envelopeOf(e, occurredAt, trace));
  const columns = copyColumnsOf(manager.connection.getMetadata(OutboxEvent), OUTBOX_COPY_COLUMNS);
  await copyInto(
    manager,
    manager.connection.getMetadata(OutboxEvent).tableName,
    columns,
    envelopes.map((envelope, i) => {
      const dataJson = events[i].dataJson;
      const stored = dataJson === undefined ? envelope : new RawJson(envelopeJsonWith(envelope, dataJson));
      return [
        envelope.id,
        envelope.type,
        subjectFor('', events[i].source, events[i].collection, events[i].action),
        stored,
        occurredAt,
        recordIdOf(events[i].data),
      ];
    }),
  );
  await notifyRelays(manager);
  return envelopes;
}

/** The record an event is about: its data's `_id` when that is an id (a record's events are published in order). */
export function recordIdOf(data: unknown): string | null {
  const id = (data as { _id?: unknown } | null | undefined)?._id;
  return typeof id === 'string' && isId(id) ? id : null;
}

function checkOutbox(manager: EntityManager, caller: string): void {
  if (!manager.queryRunner?.isTransactionActive) {
    throw new InternalError(`${caller} must run inside the transaction that makes the change`);
  }
  if (!manager.connection.hasMetadata(OutboxEvent)) {
    throw new InternalError('OutboxEvent is not among the DataSource entities');
  }
}

function envelopeOf<T>(
  e: RecordEventInput<T>,
  occurredAt: Date,
  trace: StoredTraceContext | undefined,
): EventEnvelope<T> {
  const ctx = currentContext();
  return buildEnvelope({
    id: newId(),
    source: e.source,
    collection: e.collection,
    action: e.action,
    data: e.data,
    occurredAt,
    actor: e.actor !== undefined ? e.actor : (ctx?.actor ?? null),
    requestId: e.requestId ?? ctx?.requestId,
    // The active span's trace context: the relay's publish and every consumer continue it.
    trace,
  });
}

/** Wakes the relays of this schema; Postgres delivers the NOTIFY at commit, once however often it is sent. */
async function notifyRelays(manager: EntityManager): Promise<void> {
  await manager.query("SELECT pg_notify($1, '')", [outboxChannel(schemaOf(manager.connection.options))]);
}
