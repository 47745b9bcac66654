import { Entity, Index } from 'typeorm';
import { AttributeGroup } from '@pim/resources';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';

/**
 * An attribute group: its columns come from its declaration. Search indexes and
 * the tags index are created by the migration.
 */
@Entity({ name: 'attribute_groups' })
@Index('UQ_attribute_groups_key_live', ['key'], { unique: true, where: 'deleted = false' })
@Index('IDX_attribute_groups_created_at', ['created_at', '_id'])
@Index('IDX_attribute_groups_category_live', ['category_id'], { where: 'deleted = false' })
@Index('IDX_attribute_groups_search', { synchronize: false })
@Index('IDX_attribute_groups_tags', { synchronize: false })
export class AttributeGroupEntity extends declaredEntity(AttributeGroup, SearchableRecordEntity) {}
