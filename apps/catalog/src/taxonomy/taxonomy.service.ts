import type { DataSource } from 'typeorm';
import type { TaxonomyInput, TaxonomyView } from '@pim/resources';
import { RecordService } from '../record/record.service';
import type { TaxonomyEntity } from './taxonomy.entity';
import { taxonomyRecord, type TaxonomyResource } from './taxonomy.resource';

/** The record service of one taxonomy resource (brands, category trees, categories, families, catalogs). */
export class TaxonomyService<
  E extends TaxonomyEntity,
  V extends TaxonomyView,
  I extends TaxonomyInput = TaxonomyInput,
> extends RecordService<E, V, I> {
  constructor(ds: DataSource, taxonomy: TaxonomyResource<E, V, I>) {
    super(ds, taxonomyRecord(taxonomy));
  }
}
