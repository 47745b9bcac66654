import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { Family } from '@pim/resources';
import { TaxonomyTable } from './taxonomy.entity';

/** One attribute of a family as stored (the REST shape). */
export interface FamilyAttributeRef {
  _id: string;
  required: boolean;
}

/** A family: the attribute groups and attributes its products carry. */
@TaxonomyTable('families')
export class FamilyEntity extends declaredEntity(Family, SearchableRecordEntity) {}
