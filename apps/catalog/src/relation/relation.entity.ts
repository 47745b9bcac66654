import { Column, Entity, Index } from 'typeorm';
import type { ProductRelationItem, ProductRelationType } from '@pim/resources';
import { SearchableRecordEntity } from '@pim/records';

/**
 * A product relation. The list its type names is stored as `items` (the REST
 * shape); `key` is `<product_id>:<type>`, unique among live relations, so a product has at most
 * one relation of each type and BatchGet can read by it.
 */
@Entity({ name: 'product_relations' })
@Index('UQ_product_relations_key_live', ['key'], { unique: true, where: 'deleted = false' })
@Index('IDX_product_relations_created_at', ['created_at', '_id'])
@Index('IDX_product_relations_product_live', ['product_id'], { where: 'deleted = false' })
@Index('IDX_product_relations_items', { synchronize: false })
export class ProductRelationEntity extends SearchableRecordEntity {
  @Column({ type: 'text' })
  key!: string;

  @Column({ type: 'text' })
  type!: ProductRelationType;

  @Column({ type: 'char', length: 24 })
  product_id!: string;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  items!: ProductRelationItem[];
}
