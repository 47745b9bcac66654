import type { DataSource, EntityManager } from 'typeorm';
import { quoteIdent } from '@pim/db';
import { ConflictError, NotFoundError, PimError, UnavailableError } from '@pim/errors';
import { newId } from '@pim/ids';
import type { Logger } from '@pim/logging';
import { applyListQuery, type ListQuery, type ResourceDecl } from '@pim/query';
import { DeadLetter, OUTBOX_SOURCE } from './dead-letter.entity';
import { errorText } from './error-text';
import type { EventEnvelope } from './event.envelope';
import { outboxChannel, recordIdOf, schemaOf } from './outbox.record';

/** What handles a consumer's events: its dead letters are handed to it again when re-driven. */
export type DeadLetterHandler = (events: EventEnvelope[]) => Promise<void>;

/** An event a consumer gave up on. */
export interface ConsumedDeadLetter {
  /** The consumer's name ("fan-out"). */
  source: string;
  envelope: EventEnvelope;
  /** The subject it was received on. */
  subject: string;
  /** Deliveries that failed. */
  attempts: number;
  error: unknown;
}

/** Where a consumer keeps the events it gives up on, and how they come back to it (EventConsumer's `deadLetters`). */
export interface DeadLetterSink {
  /** Names the handler that re-drives the dead letters of `source`. */
  handleWith(source: string, handle: DeadLetterHandler): void;
  /** Keeps an event a consumer gave up on (again: its attempts and error are updated). */
  setAside(letter: ConsumedDeadLetter): Promise<void>;
}

/** A dead letter as listed: without its event, with the event's size. */
export type DeadLetterSummary = Omit<DeadLetter, 'envelope'> & { size_bytes: number };

/** What a re-drive did: back in the outbox, or handled by its consumer now. */
export type RedriveOutcome = 'queued' | 'handled';

const LISTED = [
  'id',
  'source',
  'event_id',
  'event_type',
  'subject',
  'record_id',
  'occurred_at',
  'attempts',
  'last_error',
  'created_at',
  'updated_at',
] as const;
const LOCK_NOT_AVAILABLE = '55P03';

function pgCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; driverError?: { code?: unknown } };
  const code = e?.driverError?.code ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * An app's dead letters (`dead_letters` in its schema): the events its outbox relay set aside
 * (moved there by OutboxRelay) and those its consumers gave up on (`setAside`), listed, re-driven
 * and discarded by the kit's DeadLettersService. A re-driven outbox event goes back to the outbox
 * ahead of the later events of its record; a consumer's is handed to that consumer's handler, which
 * this process must have (`handleWith`, done by EventConsumer).
 */
export class DeadLetterStore implements DeadLetterSink {
  private readonly table: string;
  private readonly outbox: string;
  private readonly channel: string;
  private readonly handlers = new Map<string, DeadLetterHandler>();

  constructor(private readonly opts: { dataSource: DataSource; logger: Logger }) {
    const schema = schemaOf(opts.dataSource.options);
    this.table = `${quoteIdent(schema)}."dead_letters"`;
    this.outbox = `${quoteIdent(schema)}."outbox"`;
    this.channel = outboxChannel(schema);
  }

  handleWith(source: string, handle: DeadLetterHandler): void {
    if (source === OUTBOX_SOURCE) throw new TypeError(`"${OUTBOX_SOURCE}" is the outbox's own source`);
    if (this.handlers.has(source)) throw new TypeError(`dead letters of "${source}" already have a handler`);
    this.handlers.set(source, handle);
  }

  /** The sources whose dead letters this process knows of: the outbox and the consumers it runs. */
  sources(): string[] {
    return [OUTBOX_SOURCE, ...this.handlers.keys()];
  }

  async setAside(letter: ConsumedDeadLetter): Promise<void> {
    const e = letter.envelope;
    await this.opts.dataSource.query(
      `INSERT INTO ${this.table}
              ("id", "source", "event_id", "event_type", "subject", "record_id", "envelope", "occurred_at", "attempts", "last_error")
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT ("source", "event_id") DO UPDATE
          SET "attempts" = GREATEST(${this.table}."attempts", EXCLUDED."attempts"),
              "last_error" = EXCLUDED."last_error", "updated_at" = now()`,
      [
        newId(),
        letter.source,
        e.id,
        e.type,
        letter.subject,
        recordIdOf(e.data),
        JSON.stringify(e),
        e.occurred_at,
        letter.attempts,
        errorText(letter.error),
      ],
    );
  }

  /** A page of dead letters (the query already checked against `decl`), without their events. */
  async list(query: ListQuery, decl: ResourceDecl): Promise<{ data: DeadLetterSummary[]; total: number }> {
    const qb = this.opts.dataSource
      .getRepository(DeadLetter)
      .createQueryBuilder('d')
      .select(LISTED.map((c) => `d.${c}`));
    const [rows, total] = await applyListQuery(qb, decl, query, 'd').getManyAndCount();
    if (rows.length === 0) return { data: [], total };
    const sizes: { id: string; n: number }[] = await this.opts.dataSource.query(
      `SELECT "id", octet_length("envelope"::text) AS "n" FROM ${this.table} WHERE "id" = ANY($1)`,
      [rows.map((r) => r.id)],
    );
    const sizeOf = new Map(sizes.map((s) => [s.id, Number(s.n)]));
    return { data: rows.map((r) => ({ ...r, size_bytes: sizeOf.get(r.id) ?? 0 })), total };
  }

  /**
   * Tries a dead letter again. An outbox one goes back to the outbox with fresh attempts, ahead of
   * the later events of its record (which follow it once it is published); a consumer's is handed
   * to the consumer's handler now and removed once handled. A handler that fails again leaves it
   * here (attempts and error updated) and throws a ConflictError with the reason.
   */
  async redrive(id: string): Promise<{ letter: DeadLetterSummary; outcome: RedriveOutcome }> {
    const result = await this.opts.dataSource.transaction(async (m) => {
      const letter = await this.lock(m, id);
      if (letter.source === OUTBOX_SOURCE) {
        await this.requeue(m, letter.id);
        return { letter, outcome: 'queued' as const };
      }
      const handle = this.handlers.get(letter.source);
      if (!handle) {
        throw new UnavailableError(
          `This replica does not run the consumer "${letter.source}", so it cannot hand it the event again`,
          {
            title: 'Consumer not running here',
            solution: `Retry in a moment (another replica may run it); if it persists, turn the "${letter.source}" consumer on in this app's settings`,
            retryAfter: 1,
          },
        );
      }
      const [{ envelope }]: { envelope: string }[] = await m.query(
        `SELECT "envelope"::text AS "envelope" FROM ${this.table} WHERE "id" = $1`,
        [letter.id],
      );
      try {
        await handle([JSON.parse(envelope) as EventEnvelope]);
      } catch (err) {
        await m.query(
          `UPDATE ${this.table} SET "attempts" = "attempts" + 1, "last_error" = $2, "updated_at" = now() WHERE "id" = $1`,
          [letter.id, errorText(err)],
        );
        return { letter, failure: err };
      }
      await m.query(`DELETE FROM ${this.table} WHERE "id" = $1`, [letter.id]);
      return { letter, outcome: 'handled' as const };
    });
    if ('failure' in result) {
      const { letter, failure } = result;
      const reason = failure instanceof PimError ? failure.message : errorText(failure);
      this.opts.logger.warn(
        { err: failure, dead_letter_id: letter.id, event_id: letter.event_id, source: letter.source },
        're-driving a dead letter failed again; it stays a dead letter',
      );
      throw new ConflictError(
        `The event ${letter.event_id} (${letter.event_type}) failed again in the "${letter.source}" consumer: ${reason}`,
        {
          title: 'The event still fails',
          solution:
            'Fix what the error names, then re-drive the dead letter again; or discard it if the event is no longer needed',
        },
      );
    }
    this.opts.logger.info(
      { dead_letter_id: id, event_id: result.letter.event_id, source: result.letter.source, outcome: result.outcome },
      'a dead letter was re-driven',
    );
    return { letter: result.letter, outcome: result.outcome };
  }

  /** Drops a dead letter for good; the later events of its record that waited behind it go on. */
  async discard(id: string): Promise<DeadLetterSummary> {
    const letter = await this.opts.dataSource.transaction(async (m) => {
      const found = await this.lock(m, id);
      await m.query(`DELETE FROM ${this.table} WHERE "id" = $1`, [found.id]);
      if (found.source === OUTBOX_SOURCE) await m.query('SELECT pg_notify($1, $2)', [this.channel, '']);
      return found;
    });
    this.opts.logger.warn(
      { dead_letter_id: id, event_id: letter.event_id, event_type: letter.event_type, source: letter.source },
      'a dead letter was discarded; its event will never be delivered',
    );
    return letter;
  }

  /** The dead letter, locked for this transaction; 404 when absent, 409 while another call holds it. */
  private async lock(m: EntityManager, id: string): Promise<DeadLetterSummary> {
    let rows: (Omit<DeadLetter, 'envelope'> & { size_bytes: number })[];
    try {
      rows = await m.query(
        `SELECT ${LISTED.map((c) => `"${c}"`).join(', ')}, octet_length("envelope"::text) AS "size_bytes"
           FROM ${this.table} WHERE "id" = $1 FOR UPDATE NOWAIT`,
        [id],
      );
    } catch (err) {
      if (pgCode(err) === LOCK_NOT_AVAILABLE)
        throw new ConflictError(`The dead letter '${id}' is being re-driven or discarded right now`, {
          title: 'Dead letter busy',
          solution: 'Wait a moment, then list the dead letters again to see whether it is still there',
        });
      throw err;
    }
    if (rows.length === 0)
      throw new NotFoundError(`No dead letter with _id '${id}'`, {
        title: 'Dead letter not found',
        solution: 'List the dead letters to find the right _id; one re-driven or discarded is gone',
      });
    const r = rows[0];
    return {
      ...r,
      id: r.id.trim(),
      event_id: r.event_id.trim(),
      record_id: r.record_id?.trim() ?? null,
      occurred_at: new Date(r.occurred_at),
      created_at: new Date(r.created_at),
      updated_at: new Date(r.updated_at),
      size_bytes: Number(r.size_bytes),
    };
  }

  /** Puts an outbox dead letter back into the outbox, due now and ahead of its record's later events, and wakes the relays. */
  private async requeue(m: EntityManager, id: string): Promise<void> {
    // next_attempt_at set (due now) marks it as retrying: its record's later events wait until it is published.
    await m.query(
      `WITH d AS (DELETE FROM ${this.table} WHERE "id" = $1 RETURNING *)
       INSERT INTO ${this.outbox}
              ("id", "type", "subject", "envelope", "occurred_at", "record_id", "attempts", "last_error", "next_attempt_at")
       SELECT d."event_id", d."event_type", d."subject", d."envelope", d."occurred_at", d."record_id", 0, NULL, now() FROM d
       ON CONFLICT ("id") DO UPDATE
          SET "published_at" = NULL, "envelope" = EXCLUDED."envelope", "attempts" = 0, "last_error" = NULL,
              "next_attempt_at" = now()`,
      [id],
    );
    await m.query('SELECT pg_notify($1, $2)', [this.channel, '']);
  }
}
