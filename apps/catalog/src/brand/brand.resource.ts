import { brandListDecl, brandSchemas, type BrandView } from '@pim/resources';
import type { TaxonomyResource } from '../taxonomy/taxonomy.resource';
import { refuseDeleteNamedByProducts } from '../product/product.usage';
import { BrandEntity } from './brand.entity';

/** Brands: the common taxonomy fields and rules; one that live products name cannot be deleted. */
export const brandResource: TaxonomyResource<BrandEntity, BrandView> = {
  collection: 'brands',
  label: 'brand',
  path: '/api/v1/brands',
  entity: BrandEntity,
  schemas: brandSchemas,
  listDecl: brandListDecl,
  ownColumns: () => ({}),
  ownView: () => ({}),
  hooks: { beforeDelete: refuseDeleteNamedByProducts('brand', 'brand_id') },
};
