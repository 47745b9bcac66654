import { Column, Entity, Index } from 'typeorm';
import { RecordEntity, declaredEntity } from '@pim/records';
import { ProductApproval } from '@pim/resources';

/**
 * A product approval: the declared fields (`ProductApproval` in @pim/resources) and the common
 * record columns, plus when the application of its approved changes may next be tried.
 */
@Entity({ name: 'product_approvals' })
@Index('IDX_product_approvals_created_at', ['created_at', '_id'])
@Index('IDX_product_approvals_product_id', ['product_id'])
// The application queue: approved approvals whose changes are not in the catalog yet.
@Index('IDX_product_approvals_to_apply', ['apply_after'], {
  where: `"application" ->> 'status' = 'pending' AND deleted = false`,
})
export class ProductApprovalEntity extends declaredEntity(ProductApproval, RecordEntity) {
  /** While the application is pending: the earliest time a worker may call the catalog again (a lease, then a backoff). */
  @Column({ type: 'timestamptz', nullable: true })
  apply_after!: Date | null;
}
