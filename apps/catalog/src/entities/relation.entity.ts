import { Column, Entity, Index } from 'typeorm';
import { ProductRelation, type ProductRelationItem } from '@pim/resources';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';

/**
 * A product relation: its columns come from its declaration, but the lists: the
 * one its type names is stored as `items` (the REST shape). `key` is `<product_id>:<type>`,
 * unique among live relations, so a product has at most one relation of each type and BatchGet
 * can read by it.
 */
@Entity({ name: 'product_relations' })
@Index('UQ_product_relations_key_live', ['key'], { unique: true, where: 'deleted = false' })
@Index('IDX_product_relations_created_at', ['created_at', '_id'])
@Index('IDX_product_relations_product_live', ['product_id'], { where: 'deleted = false' })
@Index('IDX_product_relations_items', { synchronize: false })
export class ProductRelationEntity extends declaredEntity(ProductRelation, SearchableRecordEntity) {
  @Column({ type: 'text' })
  key!: string;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  items!: ProductRelationItem[];
}
