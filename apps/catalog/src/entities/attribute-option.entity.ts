import { Entity, Index } from 'typeorm';
import { AttributeOption } from '@pim/resources';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';

/**
 * An option of a select or multiselect attribute: its columns come from its
 * declaration. Its value is unique among the live options of its attribute; lists run per
 * attribute in the default order on one index.
 */
@Entity({ name: 'attribute_options' })
@Index('UQ_attribute_options_value_live', ['attribute_id', 'value'], { unique: true, where: 'deleted = false' })
@Index('IDX_attribute_options_attribute_created_at', ['attribute_id', 'created_at', '_id'], {
  where: 'deleted = false',
})
@Index('IDX_attribute_options_search', { synchronize: false })
@Index('IDX_attribute_options_tags', { synchronize: false })
export class AttributeOptionEntity extends declaredEntity(AttributeOption, SearchableRecordEntity) {}
