import { Column, Entity, Index } from 'typeorm';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { Import } from '@pim/resources';

/**
 * An import: the declared fields (`Import` in @pim/resources) and the common record columns, plus
 * the worker's checkpoint, which the API never shows.
 */
@Entity({ name: 'imports' })
@Index('IDX_imports_created_at', ['created_at', '_id'])
@Index('IDX_imports_status', ['status', 'created_at'], { where: 'deleted = false' })
export class ImportEntity extends declaredEntity(Import, SearchableRecordEntity) {
  /** The next sheet row a worker reads: moved forward in the transaction that records a batch's outcome. */
  @Column({ type: 'integer', nullable: true })
  next_row!: number | null;

  /** Rows per batch, fixed when the import starts, so a resumed import sends the same batches (same ids) again. */
  @Column({ type: 'integer', nullable: true })
  batch_size!: number | null;
}
