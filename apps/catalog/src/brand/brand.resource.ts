import { brandListDecl, brandSchemas, type BrandView, type TaxonomyInput } from '@pim/resources';
import type { RecordResource } from '@pim/records';
import { taxonomyColumns, taxonomyView } from '../taxonomy/taxonomy.fields';
import { refuseDeleteNamedByProducts } from '../product/product.usage';
import { BrandEntity } from './brand.entity';

/** Brands: the common taxonomy fields and rules; one that live products name cannot be deleted. */
export const brandResource: RecordResource<BrandEntity, BrandView, TaxonomyInput> = {
  collection: 'brands',
  entity: BrandEntity,
  schemas: brandSchemas,
  listDecl: brandListDecl,
  handle: 'code',
  columns: (input) => taxonomyColumns(input),
  view: (e) => taxonomyView(e),
  hooks: { beforeDelete: refuseDeleteNamedByProducts('brand', 'brand_id') },
};
