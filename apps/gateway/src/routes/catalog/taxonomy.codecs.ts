import type { taxonomy as pb } from '@pim/contracts';
import type {
  BrandView,
  CatalogInput,
  CatalogView,
  CategoryInput,
  CategoryTreeView,
  CategoryView,
  FamilyInput,
  FamilyView,
  TaxonomyInput,
} from '@pim/resources';
import type { RecordCodec } from '../../http/resource.routes';

/** A message whose fields are the view's, with `id` for `_id`. */
export function mirror<V extends { _id: string }>(m: Omit<V, '_id'> & { id: string }): V {
  const { id, ...rest } = m;
  return { _id: id, ...rest } as unknown as V;
}

function common(body: TaxonomyInput): pb.BrandInput {
  return {
    code: body.code,
    name: body.name,
    description: body.description ?? {},
    enabled: body.enabled,
    tags: body.tags ?? [],
  };
}

/** Brands. */
export const brandCodec: RecordCodec<BrandView, pb.Brand, pb.BrandInput, TaxonomyInput> = {
  fromMessage: mirror,
  toInput: common,
};

/** Category trees. */
export const categoryTreeCodec: RecordCodec<CategoryTreeView, pb.CategoryTree, pb.CategoryTreeInput, TaxonomyInput> = {
  fromMessage: mirror,
  toInput: common,
};

/** Categories. */
export const categoryCodec: RecordCodec<CategoryView, pb.Category, pb.CategoryInput, CategoryInput> = {
  fromMessage: mirror,
  toInput: (body) => ({ ...common(body), category_tree_id: body.category_tree_id, parent_id: body.parent_id }),
};

/** Families: their attributes carry `_id` in REST and `id` in protos. */
export const familyCodec: RecordCodec<FamilyView, pb.Family, pb.FamilyInput, FamilyInput> = {
  fromMessage: (m) => ({
    ...mirror<FamilyView>({ ...m, attributes: [] }),
    attributes: m.attributes.map((a) => ({ _id: a.id, required: a.required })),
  }),
  toInput: (body) => ({
    ...common(body),
    attribute_groups: body.attribute_groups ?? [],
    attributes: (body.attributes ?? []).map((a) => ({ id: a._id, required: a.required })),
  }),
};

/** Catalogs. */
export const catalogCodec: RecordCodec<CatalogView, pb.Catalog, pb.CatalogInput, CatalogInput> = {
  fromMessage: mirror,
  toInput: (body) => ({ ...common(body), user_groups: body.user_groups ?? [] }),
};
