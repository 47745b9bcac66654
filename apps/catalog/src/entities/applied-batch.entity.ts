import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A bulk upsert another app sent under a batch id (a batch of an import): the ledger that makes
 * resending the batch harmless. Its row is written in the same transaction as the batch's
 * products, with each item's outcome, so a resent batch answers what the first one did and writes
 * nothing. Rows are kept for a retention period (the catalog removes older ones as it goes).
 */
@Entity({ name: 'applied_batches' })
@Index('IDX_applied_batches_applied_at', ['applied_at'])
export class AppliedBatchEntity {
  /** The caller's id of the batch: `<import id>:<first row>`. */
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'PK_applied_batches' })
  batch_id!: string;

  @Column({ type: 'timestamptz' })
  applied_at!: Date;

  /** Each item's outcome in order: its status and, for a failed one, its error object. */
  @Column({ type: 'jsonb' })
  results!: unknown;
}
