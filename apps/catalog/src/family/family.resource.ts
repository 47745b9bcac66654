import { familyListDecl, familySchemas, type FamilyInput, type FamilyView } from '@pim/resources';
import type { TaxonomyResource } from '../taxonomy/taxonomy.resource';
import { FamilyEntity } from './family.entity';

/**
 * Families: attribute groups and attributes (with `required`). Until the attributes slice exists
 * only the form of their ids is checked (and each appears once); existence checks come with it.
 */
export const familyResource: TaxonomyResource<FamilyEntity, FamilyView, FamilyInput> = {
  collection: 'families',
  label: 'family',
  path: '/api/v1/families',
  entity: FamilyEntity,
  schemas: familySchemas,
  listDecl: familyListDecl,
  ownColumns: (input) => ({ attribute_groups: input.attribute_groups ?? [], attributes: input.attributes ?? [] }),
  ownView: (f) => ({ attribute_groups: f.attribute_groups, attributes: f.attributes }),
};
