import { Column, Entity, Index } from 'typeorm';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { Export } from '@pim/resources';
import type { RunAs } from '@pim/logging';

/**
 * An export: the declared fields (`Export` in @pim/resources) and the common record columns, plus
 * what the API never shows: when its file was removed (past its retention, or with the export) and
 * who it runs as (its creator).
 */
@Entity({ name: 'exports' })
@Index('IDX_exports_created_at', ['created_at', '_id'])
@Index('IDX_exports_status', ['status', 'created_at'], { where: 'deleted = false' })
@Index('IDX_exports_expires_at', ['expires_at'], { where: 'file_removed_at IS NULL' })
export class ExportEntity extends declaredEntity(Export, SearchableRecordEntity) {
  /** When the file was removed from storage; the sweeper removes each file once. */
  @Column({ type: 'timestamptz', nullable: true })
  file_removed_at!: Date | null;

  /**
   * The caller who created it (`{ user_id?, user_name?, access? }` from the creating request's
   * context): its worker reads the catalog as them, so the file holds the products their users
   * groups see; a retry keeps it. NULL: unrestricted (no caller, or written before the column).
   */
  @Column({ type: 'jsonb', nullable: true })
  run_as!: RunAs | null;
}
