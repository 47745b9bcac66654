import { Catalog, type CatalogInput, type CatalogView } from '@pim/resources';
import { declaredRecord, type RecordResource } from '@pim/records';
import { refuseDeleteNamedByProducts } from '../product/product.usage';
import { CatalogEntity } from '../entities/catalog.entity';
import { requireUsersGroups, type UsersGroupsDirectory } from '../links/users-groups.directory';

/**
 * Catalogs: the users groups that may see their products. The groups a write adds must exist in
 * the workflow app (asked over gRPC; 503 while it does not answer, never stored unchecked).
 */
export function catalogResource(
  directory: UsersGroupsDirectory,
): RecordResource<CatalogEntity, CatalogView, CatalogInput> {
  return declaredRecord(Catalog, {
    entity: CatalogEntity,
    handle: 'code',
    hooks: {
      beforeWrite: (_m, next, prev) =>
        requireUsersGroups(
          directory,
          next.user_groups.map((id, i) => ({ field: `user_groups.${i}`, id })),
          prev?.user_groups ?? [],
        ),
      beforeDelete: refuseDeleteNamedByProducts('catalog', 'catalogs'),
    },
  });
}
