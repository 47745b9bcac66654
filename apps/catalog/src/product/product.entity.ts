import { Column, Entity, Index } from 'typeorm';
import type { ProductType } from '@pim/resources';
import { SearchableRecordEntity } from '@pim/records';

/** A catalog the product is in, as stored (the REST shape). */
export interface ProductCatalogLink {
  _id: string;
  user_groups: string[];
}

/** One publication of the product, as stored (the REST shape). */
export interface ProductPublishment {
  channel: string;
  published_at: string;
  status: string;
}

/**
 * A product. Optional scalars are NULL when absent; `completeness` (per
 * language) and `completeness_min` (its lowest value) are derived on every write so lists can
 * filter and sort on them. Search, tags, the id-array GINs and the `attributes` GIN are created
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
export class ProductEntity extends SearchableRecordEntity {
  @Column({ type: 'char', length: 24, nullable: true })
  family_id!: string | null;

  @Column({ type: 'char', length: 24, nullable: true })
  brand_id!: string | null;

  @Column({ type: 'double precision', nullable: true })
  fulfilled!: number | null;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  categories!: string[];

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  category_trees!: string[];

  @Column({ type: 'char', length: 24, nullable: true })
  product_id!: string | null;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  catalogs!: ProductCatalogLink[];

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  attribute_groups!: string[];

  @Column({ type: 'jsonb', default: () => "'{}'" })
  attributes_schema_snapshot!: Record<string, unknown>;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  attributes_options_snapshot!: Record<string, unknown>;

  @Column({ type: 'text' })
  code!: string;

  /** Translate: language code → text. */
  @Column({ type: 'jsonb' })
  name!: Record<string, string>;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  description!: Record<string, string>;

  @Column({ type: 'text', nullable: true })
  image!: string | null;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  images!: string[];

  @Column({ type: 'jsonb', default: () => "'{}'" })
  attributes!: Record<string, unknown>;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  tags!: string[];

  @Column({ type: 'text' })
  type!: ProductType;

  @Column({ type: 'char', length: 24, nullable: true })
  product_approval!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  last_approval_at!: Date | null;

  @Column({ type: 'boolean', default: false })
  published!: boolean;

  @Column({ type: 'text', nullable: true })
  last_publishment_id!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  last_published_at!: Date | null;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  publishments!: ProductPublishment[];

  @Column({ type: 'jsonb', default: () => "'{}'" })
  completeness!: Record<string, number>;

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
