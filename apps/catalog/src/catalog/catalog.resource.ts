import { Catalog } from '@pim/resources';
import { declaredRecord } from '@pim/records';
import { refuseDeleteNamedByProducts } from '../product/product.usage';
import { CatalogEntity } from '../entities/catalog.entity';

/**
 * Catalogs: the users groups that may see their products. Users groups live in the workflow app,
 * which does not exist yet: only the form of the ids is checked (and each appears once).
 */
export const catalogResource = declaredRecord(Catalog, {
  entity: CatalogEntity,
  handle: 'code',
  hooks: { beforeDelete: refuseDeleteNamedByProducts('catalog', 'catalogs') },
});
