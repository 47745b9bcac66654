import { Column, Entity, Index } from 'typeorm';
import { Attribute } from '@pim/resources';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';

/** A link to an attribute group or a category, as stored (the REST shape). */
export interface AttributeLink {
  _id: string;
  required: boolean;
}

/**
 * An attribute: its columns come from its declaration, but `type`, which the
 * table holds without a default (the record engine writes it). `group_ids` and `category_ids`
 * repeat the links' ids as arrays, so `group_ids=<id>` is one GIN lookup (and a group or
 * category in use is found the same way). Search, tags and the two link indexes are created by
 * the migration.
 */
@Entity({ name: 'attributes' })
@Index('UQ_attributes_key_live', ['key'], { unique: true, where: 'deleted = false' })
@Index('IDX_attributes_created_at', ['created_at', '_id'])
@Index('IDX_attributes_search', { synchronize: false })
@Index('IDX_attributes_tags', { synchronize: false })
@Index('IDX_attributes_group_ids', { synchronize: false })
@Index('IDX_attributes_category_ids', { synchronize: false })
export class AttributeEntity extends declaredEntity(Attribute, SearchableRecordEntity, { type: { type: 'text' } }) {
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  group_ids!: string[];

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  category_ids!: string[];
}
