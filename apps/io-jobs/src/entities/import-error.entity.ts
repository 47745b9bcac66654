import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A row an import could not store: its cells as read and what was wrong, kept to write the error
 * file. Written in the transaction that records its batch, so a resumed import never keeps a row twice.
 */
@Entity({ name: 'import_errors' })
export class ImportErrorEntity {
  @PrimaryColumn({ type: 'char', length: 24, primaryKeyConstraintName: 'PK_import_errors' })
  import_id!: string;

  /** The row's number in the sheet (1 = first). */
  @PrimaryColumn({ type: 'integer', primaryKeyConstraintName: 'PK_import_errors' })
  row_number!: number;

  /** The row's cells as read, index 0 = column A. */
  @Column({ type: 'jsonb' })
  cells!: unknown[];

  /** Each problem in words, `column: message`. */
  @Column({ type: 'text' })
  problems!: string;
}
