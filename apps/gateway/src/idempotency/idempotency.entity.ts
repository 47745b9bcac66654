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

  @Column({ type: 'timestamptz' })
  created_at!: Date;
}
