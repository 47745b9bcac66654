import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { CategoryTree } from '@pim/resources';
import { TaxonomyTable } from './taxonomy.entity';

/** A category tree: the root its categories hang from. */
@TaxonomyTable('category_trees')
export class CategoryTreeEntity extends declaredEntity(CategoryTree, SearchableRecordEntity) {}
