import { Brand } from '@pim/resources';
import { declaredRecord } from '@pim/records';
import { refuseDeleteNamedByProducts } from '../product/product.usage';
import { BrandEntity } from '../entities/brand.entity';

/** Brands: the common taxonomy fields and rules; one that live products name cannot be deleted. */
export const brandResource = declaredRecord(Brand, {
  entity: BrandEntity,
  handle: 'code',
  hooks: { beforeDelete: refuseDeleteNamedByProducts('brand', 'brand_id') },
});
