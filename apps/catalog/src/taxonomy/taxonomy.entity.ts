import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Columns every taxonomy table has: the common fields (decisions.md §1) and the shared taxonomy fields. */
export abstract class TaxonomyEntity {
  @PrimaryColumn({ type: 'char', length: 24 })
  _id!: string;

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

  /**
   * The code and every language of the name, one per line: what `_search` matches. One column
   * lets one trigram index serve the whole search (an OR over code and a jsonb walk could not).
   */
  @Column({ type: 'text' })
  search_text!: string;

  @Column({ type: 'integer', default: 1 })
  version!: number;

  @Column({ type: 'timestamptz' })
  created_at!: Date;

  @Column({ type: 'timestamptz' })
  updated_at!: Date;

  @Column({ type: 'text', nullable: true })
  created_by_name!: string | null;

  @Column({ type: 'boolean', default: false })
  deleted!: boolean;

  @Column({ type: 'timestamptz', nullable: true })
  deleted_at!: Date | null;

  @Column({ type: 'text', nullable: true })
  deleted_by!: string | null;
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
