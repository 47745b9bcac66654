import { Column, Entity, Index } from 'typeorm';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { Order } from '@pim/resources';

/**
 * An order: the declared fields (`Order` in @pim/resources), the common record columns, and the
 * nested values lists filter on, kept in columns of their own so an index serves them.
 */
@Entity({ name: 'orders' })
@Index('UQ_orders_code_live', ['code'], { unique: true, where: 'deleted = false' })
@Index('IDX_orders_created_at', ['created_at', '_id'])
@Index('IDX_orders_customer_email', ['customer_email'], { where: 'deleted = false' })
@Index('IDX_orders_customer_document', ['customer_document'], { where: 'deleted = false' })
@Index('IDX_orders_channel_placed_at', ['channel_code', 'placed_at', '_id'], { where: 'deleted = false' })
@Index('IDX_orders_status_code', ['status_code'], { where: 'deleted = false' })
// Open orders by the earliest of their two due dates: `overdue=true|false` (an expression index, in the migration).
@Index('IDX_orders_overdue', { synchronize: false })
@Index('IDX_orders_channel_overdue', { synchronize: false })
@Index('IDX_orders_workflow_id', ['workflow_id'], { where: 'deleted = false AND final_status_type IS NULL' })
export class OrderEntity extends declaredEntity(Order, SearchableRecordEntity) {
  /** `customer.email`: what the `customer.email` filter compares. */
  @Column({ type: 'text', nullable: true })
  customer_email!: string | null;

  /** `customer.document`. */
  @Column({ type: 'text', nullable: true })
  customer_document!: string | null;

  /** `channel.code`. */
  @Column({ type: 'text' })
  channel_code!: string;
}
