import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A change request another app had applied to a product (a product approval of the workflow app):
 * the ledger that makes applying it idempotent. Its row is written in the same transaction as the
 * change, so a change is in the catalog exactly when its row is.
 */
@Entity({ name: 'applied_changes' })
export class AppliedChangeEntity {
  /** The change request's id (a product approval's `_id`). */
  @PrimaryColumn({ type: 'char', length: 24, primaryKeyConstraintName: 'PK_applied_changes' })
  change_id!: string;

  @Column({ type: 'char', length: 24 })
  product_id!: string;

  @Column({ type: 'timestamptz' })
  applied_at!: Date;

  /** The product's version right after the change. */
  @Column({ type: 'integer' })
  product_version!: number;
}
