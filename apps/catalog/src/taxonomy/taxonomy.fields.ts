import type { TaxonomyInput } from '@pim/resources';
import { searchTextOf, type SearchableRecordEntity } from '@pim/records';
import type { TaxonomyEntity } from './taxonomy.entity';

/** The shared taxonomy columns from a validated input: optional fields back to their defaults, search text from code and name. */
export function taxonomyColumns(
  input: TaxonomyInput,
): Omit<TaxonomyEntity, keyof SearchableRecordEntity> & Pick<SearchableRecordEntity, 'search_text'> {
  return {
    code: input.code,
    name: input.name,
    description: input.description ?? {},
    enabled: input.enabled ?? true,
    tags: input.tags ?? [],
    search_text: searchTextOf(input.code, input.name),
  };
}

/** The shared taxonomy fields as the API shows them, in its order. */
export function taxonomyView(
  e: TaxonomyEntity,
): Pick<TaxonomyEntity, 'code' | 'name' | 'description' | 'enabled' | 'tags'> {
  return { code: e.code, name: e.name, description: e.description, enabled: e.enabled, tags: e.tags };
}
