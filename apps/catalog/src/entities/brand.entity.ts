import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { Brand } from '@pim/resources';
import { TaxonomyTable } from './taxonomy.entity';

/** A brand: the common taxonomy fields only. */
@TaxonomyTable('brands')
export class BrandEntity extends declaredEntity(Brand, SearchableRecordEntity) {}
