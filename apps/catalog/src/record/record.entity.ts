import { Column, PrimaryColumn } from 'typeorm';

/** Columns every record of the catalog has: the common fields (decisions.md §1) and its search text. */
export abstract class RecordEntity {
  @PrimaryColumn({ type: 'char', length: 24 })
  _id!: string;

  /**
   * What `_search` matches: the texts of the resource's searchable fields, one per line. One
   * column lets one trigram index serve the whole search (an OR over columns and jsonb walks could not).
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
