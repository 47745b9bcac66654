import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * A pending recompute of stored completeness, written in the same transaction as the change
 * that caused it (an attribute's links or `required`, a family's members). Its scope names the
 * products it concerns: those in `group_ids` (their own or their family's attribute groups), in
 * `category_ids`, of `family_ids`, or of the families naming one of `attribute_ids`. A worker
 * holds it by lease and walks those products by `_id` (`after_id` is how far it got); the row is
 * deleted when the walk ends.
 */
@Entity({ name: 'completeness_jobs' })
@Index('IDX_completeness_jobs_created_at', ['created_at', 'id'])
export class CompletenessJobEntity {
  @PrimaryColumn({ type: 'char', length: 24, primaryKeyConstraintName: 'PK_completeness_jobs' })
  id!: string;

  /** What changed, for people: `attributes.updated <id>`. */
  @Column({ type: 'text' })
  cause!: string;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  group_ids!: string[];

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  category_ids!: string[];

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  family_ids!: string[];

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  attribute_ids!: string[];

  @Column({ type: 'timestamptz' })
  created_at!: Date;

  /** The last product `_id` done; the next batch starts after it. */
  @Column({ type: 'char', length: 24, nullable: true })
  after_id!: string | null;

  @Column({ type: 'char', length: 24, nullable: true })
  lease_token!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  lease_until!: Date | null;

  /** How many times a worker took it (a value above 1 means one stopped or failed on it). */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** Products whose completeness this job changed so far. */
  @Column({ type: 'integer', default: 0 })
  products_updated!: number;

  @Column({ type: 'text', nullable: true })
  last_error!: string | null;
}
