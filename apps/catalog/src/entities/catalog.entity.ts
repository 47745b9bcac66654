import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { Catalog } from '@pim/resources';
import { TaxonomyTable } from './taxonomy.entity';

/** A catalog: a selection of products and the users groups that may see it. */
@TaxonomyTable('catalogs')
export class CatalogEntity extends declaredEntity(Catalog, SearchableRecordEntity) {}
