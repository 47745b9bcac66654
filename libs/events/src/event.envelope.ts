import { isId } from '@pim/ids';

/** Who caused an event, as the gateway identified the caller; null for system work. */
export interface EventActor {
  user_id?: string;
  user_name?: string;
}

/** What every event on the bus carries; `data` is the resource as the REST API shows it. */
export interface EventEnvelope<T = unknown> {
  id: string;
  type: string;
  collection: string;
  occurred_at: string;
  source: string;
  actor: EventActor | null;
  data: T;
  schema_version: 1;
  request_id?: string;
  /**
   * The W3C trace context of the span that recorded the event (tracing on only; absent otherwise).
   * A consumer of the stream sees its own consumer span's here (`EventConsumer` replaces it), so
   * what it causes joins the same trace. Never part of what webhooks deliver.
   */
  traceparent?: string;
  tracestate?: string;
}

/** Whether a parsed message has what a consumer needs of an envelope (the data itself is not checked). */
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

// A token becomes one level of a NATS subject, so separators, wildcards and spaces would change
// which consumers match it.
const TOKEN = /^[A-Za-z0-9_-]+$/;

function checkToken(kind: string, value: string): void {
  if (!TOKEN.test(value)) throw new TypeError(`Invalid event ${kind} "${value}": use letters, digits, "_" or "-"`);
}

/** The subject an event is published on: `${prefix}pim.<app>.<collection>.<action>` (prefix '' in production). */
export function subjectFor(prefix: string, app: string, collection: string, action: string): string {
  if (prefix !== '' && (!prefix.endsWith('.') || /[\s*>]/.test(prefix) || prefix.startsWith('.'))) {
    throw new TypeError(`Invalid subject prefix "${prefix}": it must be empty or a subject fragment ending with "."`);
  }
  checkToken('app', app);
  checkToken('collection', collection);
  checkToken('action', action);
  return `${prefix}pim.${app}.${collection}.${action}`;
}

/** The envelope `type` of an event: `<collection>.<action>`. */
export function eventType(collection: string, action: string): string {
  checkToken('collection', collection);
  checkToken('action', action);
  return `${collection}.${action}`;
}

/** Fields a caller gives to build an envelope. */
export interface EnvelopeInput<T = unknown> {
  id: string;
  source: string;
  collection: string;
  action: string;
  data: T;
  occurredAt: Date;
  actor?: EventActor | null;
  requestId?: string;
  /** The trace context to store with the event (docs/observability.md). */
  trace?: { traceparent: string; tracestate?: string };
}

/** Builds the envelope; keeps only known actor fields so nothing private rides along. */
export function buildEnvelope<T>(input: EnvelopeInput<T>): EventEnvelope<T> {
  checkToken('source', input.source);
  const actor = input.actor
    ? {
        ...(input.actor.user_id !== undefined ? { user_id: input.actor.user_id } : {}),
        ...(input.actor.user_name !== undefined ? { user_name: input.actor.user_name } : {}),
      }
    : null;
  return {
    id: input.id,
    type: eventType(input.collection, input.action),
    collection: input.collection,
    occurred_at: input.occurredAt.toISOString(),
    source: input.source,
    actor,
    data: input.data,
    schema_version: 1,
    ...(input.requestId ? { request_id: input.requestId } : {}),
    ...(input.trace ? { traceparent: input.trace.traceparent } : {}),
    ...(input.trace?.tracestate ? { tracestate: input.trace.tracestate } : {}),
  };
}
