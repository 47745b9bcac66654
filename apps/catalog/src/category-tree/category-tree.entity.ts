import { TaxonomyEntity, TaxonomyTable } from '../taxonomy/taxonomy.entity';

/** A category tree: the root its categories hang from. */
@TaxonomyTable('category_trees')
export class CategoryTreeEntity extends TaxonomyEntity {}
