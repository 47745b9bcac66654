import { Column, Entity, Index } from 'typeorm';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { Export } from '@pim/resources';

/**
 * An export: the declared fields (`Export` in @pim/resources) and the common record columns, plus
 * when its file was removed (past its retention, or with the export), which the API never shows.
 */
@Entity({ name: 'exports' })
@Index('IDX_exports_created_at', ['created_at', '_id'])
@Index('IDX_exports_status', ['status', 'created_at'], { where: 'deleted = false' })
@Index('IDX_exports_expires_at', ['expires_at'], { where: 'file_removed_at IS NULL' })
export class ExportEntity extends declaredEntity(Export, SearchableRecordEntity) {
  /** When the file was removed from storage; the sweeper removes each file once. */
  @Column({ type: 'timestamptz', nullable: true })
  file_removed_at!: Date | null;
}
