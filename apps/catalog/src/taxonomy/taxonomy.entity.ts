import { Column, Entity, Index } from 'typeorm';
import { SearchableRecordEntity } from '@pim/records';

/** Columns every taxonomy table has: the common record columns and the shared taxonomy fields. */
export abstract class TaxonomyEntity extends SearchableRecordEntity {
  @Column({ type: 'text' })
  code!: string;

  /** Translate: language code → text. */
  @Column({ type: 'jsonb' })
  name!: Record<string, string>;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  description!: Record<string, string>;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  tags!: string[];
}

/**
 * Declares a taxonomy table and the indexes every one has: code unique among live records, the
 * default sort, and (created by the migration, which TypeORM cannot describe) trigram search
 * over `search_text` and GIN on `tags`, both only over live records.
 */
export function TaxonomyTable(table: string): ClassDecorator {
  return (target) => {
    Entity({ name: table })(target);
    Index(`UQ_${table}_code_live`, ['code'], { unique: true, where: 'deleted = false' })(target);
    Index(`IDX_${table}_created_at`, ['created_at', '_id'])(target);
    Index(`IDX_${table}_search`, { synchronize: false })(target);
    Index(`IDX_${table}_tags`, { synchronize: false })(target);
  };
}
