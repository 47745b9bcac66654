import { Column } from 'typeorm';
import { TaxonomyEntity, TaxonomyTable } from '../taxonomy/taxonomy.entity';

/** A catalog: a selection of products and the users groups that may see it. */
@TaxonomyTable('catalogs')
export class CatalogEntity extends TaxonomyEntity {
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  user_groups!: string[];
}
