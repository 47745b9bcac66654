import { catalogListDecl, catalogSchemas, type CatalogInput, type CatalogView } from '@pim/resources';
import type { RecordResource } from '@pim/records';
import { taxonomyColumns, taxonomyView } from '../taxonomy/taxonomy.fields';
import { refuseDeleteNamedByProducts } from '../product/product.usage';
import { CatalogEntity } from './catalog.entity';

/**
 * Catalogs: the users groups that may see their products. Users groups live in the workflow app,
 * which does not exist yet: only the form of the ids is checked (and each appears once).
 */
export const catalogResource: RecordResource<CatalogEntity, CatalogView, CatalogInput> = {
  collection: 'catalogs',
  entity: CatalogEntity,
  schemas: catalogSchemas,
  listDecl: catalogListDecl,
  handle: 'code',
  columns: (input) => ({
    ...taxonomyColumns(input),
    user_groups: input.user_groups ?? [],
  }),
  view: (c) => ({
    ...taxonomyView(c),
    user_groups: c.user_groups,
  }),
  hooks: { beforeDelete: refuseDeleteNamedByProducts('catalog', 'catalogs') },
};
