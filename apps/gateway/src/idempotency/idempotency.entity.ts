import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** The first response to a POST with an Idempotency-Key, replayed for 24 h. */
@Entity({ name: 'idempotency_records' })
@Index('IDX_idempotency_records_created_at', ['created_at'])
export class IdempotencyRecord {
  /** Whose key it is: the API key id (keys of different callers never collide). */
  @PrimaryColumn({ type: 'text' })
  owner!: string;

  @PrimaryColumn({ type: 'text' })
  key!: string;

  /** SHA-256 of method, path and canonical JSON body. */
  @Column({ type: 'text' })
  request_hash!: string;

  /** null while the first request is still running. */
  @Column({ type: 'integer', nullable: true })
  response_status!: number | null;

  @Column({ type: 'jsonb', nullable: true })
  response_headers!: Record<string, string> | null;

  @Column({ type: 'jsonb', nullable: true })
  response_body!: unknown;

  /** When the current run of the request claimed the key ('-infinity' once released after a 5xx). */
  @Column({ type: 'timestamptz' })
  created_at!: Date;

  /**
   * When this request (key and body) was first claimed; kept across a release and a takeover. The
   * idempotency tokens of its calls derive from it (IdempotencyService.run).
   */
  @Column({ type: 'timestamptz', default: () => 'now()' })
  first_claimed_at!: Date;
}
