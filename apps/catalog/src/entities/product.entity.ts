import { Column, Entity, Index } from 'typeorm';
import { Product } from '@pim/resources';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';

/**
 * A product: its columns come from its declaration (optional scalars are NULL
 * when absent), besides what the API does not show. `completeness` (per language) and
 * `completeness_min` (its lowest value) are derived on every write so lists can filter and sort
 * on them. Search, tags, the id-array GINs and the `attributes` GIN are created
 * by the migrations; search goes through `search_folded` (docs/apps/catalog.md, "Search").
 */
@Entity({ name: 'products' })
@Index('UQ_products_code_live', ['code'], { unique: true, where: 'deleted = false' })
@Index('IDX_products_created_at', ['created_at', '_id'])
@Index('IDX_products_search_folded', { synchronize: false })
@Index('IDX_products_tags', { synchronize: false })
@Index('IDX_products_categories', { synchronize: false })
@Index('IDX_products_category_trees', { synchronize: false })
@Index('IDX_products_attribute_groups', { synchronize: false })
@Index('IDX_products_attributes', { synchronize: false })
@Index('IDX_products_family_live', ['family_id'], { where: 'deleted = false' })
@Index('IDX_products_brand_live', ['brand_id'], { where: 'deleted = false' })
@Index('IDX_products_product_live', ['product_id'], { where: 'deleted = false' })
@Index('IDX_products_completeness_min_live', ['completeness_min'], { where: 'deleted = false' })
export class ProductEntity extends declaredEntity(Product, SearchableRecordEntity) {
  @Column({ type: 'integer', default: 100 })
  completeness_min!: number;

  /**
   * `search_text` folded (lowercase, unaccented) by Postgres on every write; `_search` compares
   * it with a plain LIKE through the trigram index. Never written nor read by the app.
   */
  @Column({
    type: 'text',
    generatedType: 'STORED',
    asExpression: 'lower(immutable_unaccent(search_text))',
    insert: false,
    update: false,
    select: false,
  })
  search_folded!: string;

  /**
   * The product as GET /products/{id} shows it, serialized when it was written (a read model:
   * one read serves it without decoding jsonb or re-encoding it). NULL for rows written before it
   * existed or by hand; readers then render it from the columns. Never selected by entity loads.
   */
  @Column({ type: 'text', nullable: true, select: false })
  rendered?: string | null;
}
