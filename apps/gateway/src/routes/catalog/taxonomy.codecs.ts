import type { taxonomy as pb } from '@pim/contracts';
import {
  Brand,
  Catalog,
  Category,
  CategoryTree,
  Family,
  type BrandView,
  type CatalogInput,
  type CatalogView,
  type CategoryInput,
  type CategoryTreeView,
  type CategoryView,
  type FamilyInput,
  type FamilyView,
  type TaxonomyInput,
} from '@pim/resources';
import { declaredCodec, linksFromMessage, linksToMessage, mirror } from '../../http/declared.codec';
import type { RecordCodec } from '../../http/resource.routes';

export { mirror };

/** Brands. */
export const brandCodec: RecordCodec<BrandView, pb.Brand, pb.BrandInput, TaxonomyInput> = declaredCodec(Brand);

/** Category trees. */
export const categoryTreeCodec: RecordCodec<CategoryTreeView, pb.CategoryTree, pb.CategoryTreeInput, TaxonomyInput> =
  declaredCodec(CategoryTree);

/** Categories. */
export const categoryCodec: RecordCodec<CategoryView, pb.Category, pb.CategoryInput, CategoryInput> =
  declaredCodec(Category);

/** Families: their attributes carry `_id` in REST and `id` in protos. */
export const familyCodec: RecordCodec<FamilyView, pb.Family, pb.FamilyInput, FamilyInput> = declaredCodec(Family, {
  toInput: { attributes: linksToMessage },
  fromMessage: { attributes: linksFromMessage },
});

/** Catalogs. */
export const catalogCodec: RecordCodec<CatalogView, pb.Catalog, pb.CatalogInput, CatalogInput> = declaredCodec(Catalog);
