import { Column, PrimaryColumn } from 'typeorm';

/**
 * Columns every record has: its id, version, dates, creator and soft-delete state
 * (docs/decisions/platform.md: common fields). An owner's entity extends it with its own columns.
 */
export abstract class RecordEntity {
  @PrimaryColumn({ type: 'char', length: 24 })
  _id!: string;

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
 * A record whose `_search` runs over one stored column: the texts of the resource's searchable
 * fields, one per line. One column lets one trigram index serve the whole search (an OR over
 * columns and jsonb walks could not). The record engine searches it when the entity has it.
 */
export abstract class SearchableRecordEntity extends RecordEntity {
  @Column({ type: 'text' })
  search_text!: string;
}
