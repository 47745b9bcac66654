import { brandListDecl, brandSchemas, type BrandView } from '@pim/resources';
import type { TaxonomyResource } from '../taxonomy/taxonomy.resource';
import { BrandEntity } from './brand.entity';

/** Brands: the common taxonomy fields and rules only. */
export const brandResource: TaxonomyResource<BrandEntity, BrandView> = {
  collection: 'brands',
  label: 'brand',
  path: '/api/v1/brands',
  entity: BrandEntity,
  schemas: brandSchemas,
  listDecl: brandListDecl,
  ownColumns: () => ({}),
  ownView: () => ({}),
};
