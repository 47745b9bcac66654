export {
  buildEnvelope,
  eventType,
  isEnvelope,
  subjectFor,
  type EnvelopeInput,
  type EventActor,
  type EventEnvelope,
} from './event.envelope';
export { OUTBOX_PENDING_INDEX, OUTBOX_RETRYING_INDEX, OutboxEvent } from './outbox.entity';
export { DeadLetter, OUTBOX_SOURCE } from './dead-letter.entity';
export {
  DeadLetterStore,
  type ConsumedDeadLetter,
  type DeadLetterHandler,
  type DeadLetterSink,
  type DeadLetterSummary,
  type RedriveOutcome,
} from './dead-letter.store';
export {
  OUTBOX_DEAD_LETTERS_DOWN_SQL,
  OUTBOX_DEAD_LETTERS_UP_SQL,
  OUTBOX_DOWN_SQL,
  OUTBOX_ENVELOPE_AS_JSON_DOWN_SQL,
  OUTBOX_ENVELOPE_AS_JSON_UP_SQL,
  OUTBOX_UP_SQL,
} from './outbox.sql';
export {
  envelopeJsonWith,
  outboxChannel,
  recordEvent,
  recordIdOf,
  recordEvents,
  schemaOf,
  type RecordEventInput,
  type RecordEventsInput,
} from './outbox.record';
export { ensureStream, EVENTS_STREAM, EVENTS_SUBJECTS, type EnsureStreamOptions } from './stream.setup';
export { OutboxRelay, type OutboxRelayOptions } from './outbox.relay';
export { OutboxMetrics, type OutboxMetricsOptions } from './outbox.metrics';
export { ConsumerLagMetrics } from './consumer.metrics';
export {
  EventConsumer,
  isPostgresDataError,
  type EventConsumerOptions,
  type EventDeliverPolicy,
} from './event.consumer';
