import { catalogListDecl, catalogSchemas, type CatalogInput, type CatalogView } from '@pim/resources';
import type { TaxonomyResource } from '../taxonomy/taxonomy.resource';
import { refuseDeleteNamedByProducts } from '../product/product.usage';
import { CatalogEntity } from './catalog.entity';

/**
 * Catalogs: the users groups that may see their products. Users groups live in the workflow app,
 * which does not exist yet: only the form of the ids is checked (and each appears once).
 */
export const catalogResource: TaxonomyResource<CatalogEntity, CatalogView, CatalogInput> = {
  collection: 'catalogs',
  label: 'catalog',
  path: '/api/v1/catalogs',
  entity: CatalogEntity,
  schemas: catalogSchemas,
  listDecl: catalogListDecl,
  ownColumns: (input) => ({ user_groups: input.user_groups ?? [] }),
  ownView: (c) => ({ user_groups: c.user_groups }),
  hooks: { beforeDelete: refuseDeleteNamedByProducts('catalog', 'catalogs') },
};
