import { Column, Index } from 'typeorm';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { Category } from '@pim/resources';
import { TaxonomyTable } from './taxonomy.entity';

/**
 * A category: one node of a tree. `path` is the materialized path (ids from the top of the tree
 * down to this category, itself included), so a whole subtree is `path @> {id}` on a GIN index.
 */
@TaxonomyTable('categories')
@Index('IDX_categories_tree_live', ['category_tree_id'], { where: 'deleted = false' })
@Index('IDX_categories_parent_live', ['parent_id'], { where: 'deleted = false' })
@Index('IDX_categories_path', { synchronize: false })
export class CategoryEntity extends declaredEntity(Category, SearchableRecordEntity) {
  @Column({ type: 'text', array: true })
  path!: string[];
}
