import type { DataSourceOptions, EntityManager } from 'typeorm';
import type { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { InternalError } from '@pim/errors';
import { newId } from '@pim/ids';
import { currentContext } from '@pim/logging';
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
  /** "created", "updated", "deleted" or a collection-specific action (decisions.md §8). */
  action: string;
  /** The resource as the REST API shows it (after the change; the last state for deleted). */
  data: T;
  /** Defaults to the actor of the current request context, else null. */
  actor?: EventActor | null;
  /** Defaults to the request id of the current request context. */
  requestId?: string;
}

/**
 * Writes an event into the outbox inside the caller's transaction, so the event exists if and
 * only if the change commits, and wakes the relays (NOTIFY is delivered at commit).
 */
export async function recordEvent<T>(manager: EntityManager, e: RecordEventInput<T>): Promise<EventEnvelope<T>> {
  if (!manager.queryRunner?.isTransactionActive) {
    throw new InternalError('recordEvent must run inside the transaction that makes the change');
  }
  if (!manager.connection.hasMetadata(OutboxEvent)) {
    throw new InternalError('OutboxEvent is not among the DataSource entities');
  }
  const ctx = currentContext();
  const occurredAt = new Date();
  const envelope = buildEnvelope({
    id: newId(),
    source: e.source,
    collection: e.collection,
    action: e.action,
    data: e.data,
    occurredAt,
    actor: e.actor !== undefined ? e.actor : (ctx?.actor ?? null),
    requestId: e.requestId ?? ctx?.requestId,
  });
  await manager.insert(OutboxEvent, {
    id: envelope.id,
    type: envelope.type,
    subject: subjectFor('', e.source, e.collection, e.action),
    // TypeORM's deep-partial type cannot describe `data: unknown`; the value is plain JSON.
    envelope: envelope as QueryDeepPartialEntity<EventEnvelope>,
    occurred_at: occurredAt,
  });
  await manager.query('SELECT pg_notify($1, \'\')', [outboxChannel(schemaOf(manager.connection.options))]);
  return envelope;
}
