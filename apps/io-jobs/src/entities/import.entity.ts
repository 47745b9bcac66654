import { Column, Entity, Index } from 'typeorm';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { Import } from '@pim/resources';
import type { RunAs } from '@pim/logging';

/**
 * An import: the declared fields (`Import` in @pim/resources) and the common record columns, plus
 * what the API never shows: the worker's checkpoint and who it runs as (its uploader, then the user
 * who started it).
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

  /**
   * The caller who uploaded it, then the one who started it (`{ user_id?, user_name?, access? }`
   * from that request's context): its worker looks up and writes products as them, so a row naming
   * a product out of their sight is refused, and a caller restricted by users groups sees the import
   * only when it is theirs. NULL: unrestricted (no caller, or written before the column).
   */
  @Column({ type: 'jsonb', nullable: true })
  run_as!: RunAs | null;
}
