import { Column, Entity, Index } from 'typeorm';
import { SearchableRecordEntity } from '@pim/records';

/**
 * An option of a select or multiselect attribute. Its value is unique among the
 * live options of its attribute; lists run per attribute in the default order on one index.
 */
@Entity({ name: 'attribute_options' })
@Index('UQ_attribute_options_value_live', ['attribute_id', 'value'], { unique: true, where: 'deleted = false' })
@Index('IDX_attribute_options_attribute_created_at', ['attribute_id', 'created_at', '_id'], {
  where: 'deleted = false',
})
@Index('IDX_attribute_options_search', { synchronize: false })
@Index('IDX_attribute_options_tags', { synchronize: false })
export class AttributeOptionEntity extends SearchableRecordEntity {
  @Column({ type: 'char', length: 24 })
  attribute_id!: string;

  @Column({ type: 'text' })
  value!: string;

  /** Translate: language code → text. */
  @Column({ type: 'jsonb' })
  label!: Record<string, string>;

  @Column({ type: 'integer', default: 0 })
  sequence!: number;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  tags!: string[];

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  fields!: string[];
}
