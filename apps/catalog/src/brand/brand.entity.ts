import { TaxonomyEntity, TaxonomyTable } from '../taxonomy/taxonomy.entity';

/** A brand: the common taxonomy fields only. */
@TaxonomyTable('brands')
export class BrandEntity extends TaxonomyEntity {}
