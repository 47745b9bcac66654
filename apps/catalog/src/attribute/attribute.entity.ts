import { Column, Entity, Index } from 'typeorm';
import type { AttributeAssociation, AttributeType, TypeConfig } from '@pim/resources';
import { SearchableRecordEntity } from '@pim/records';

/** A link to an attribute group or a category, as stored (the REST shape). */
export interface AttributeLink {
  _id: string;
  required: boolean;
}

/**
 * An attribute. `group_ids` and `category_ids` repeat the links' ids as arrays,
 * so `group_ids=<id>` is one GIN lookup (and a group or category in use is found the same way).
 * Search, tags and the two link indexes are created by the migration.
 */
@Entity({ name: 'attributes' })
@Index('UQ_attributes_key_live', ['key'], { unique: true, where: 'deleted = false' })
@Index('IDX_attributes_created_at', ['created_at', '_id'])
@Index('IDX_attributes_search', { synchronize: false })
@Index('IDX_attributes_tags', { synchronize: false })
@Index('IDX_attributes_group_ids', { synchronize: false })
@Index('IDX_attributes_category_ids', { synchronize: false })
export class AttributeEntity extends SearchableRecordEntity {
  @Column({ type: 'jsonb', default: () => "'[]'" })
  groups!: AttributeLink[];

  @Column({ type: 'jsonb', default: () => "'[]'" })
  categories!: AttributeLink[];

  @Column({ type: 'text' })
  key!: string;

  /** Translate: language code → text. */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  name!: Record<string, string>;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  description!: Record<string, string>;

  @Column({ type: 'text' })
  type!: AttributeType;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  type_config!: TypeConfig;

  @Column({ type: 'boolean', default: false })
  unique!: boolean;

  @Column({ type: 'boolean', default: false })
  required!: boolean;

  @Column({ type: 'integer', default: 0 })
  sequence!: number;

  @Column({ type: 'text' })
  association!: AttributeAssociation;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'boolean' })
  protected_by_lgpd!: boolean;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  tags!: string[];

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  group_ids!: string[];

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  category_ids!: string[];
}
