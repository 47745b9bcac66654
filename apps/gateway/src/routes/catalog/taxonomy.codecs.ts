import type { taxonomy as pb } from '@pim/contracts';
import type { BrandView, CatalogInput, CatalogView, CategoryInput, CategoryTreeView, CategoryView, FamilyInput, FamilyView, TaxonomyInput } from '@pim/resources';

/** How one resource crosses between REST (views, bodies) and gRPC (messages, inputs). */
export interface TaxonomyCodec<V, M, In, I> {
  /** Proto message → the API's record (`id` is `_id` in REST). */
  fromMessage(m: M): V;
  /** The API's validated body → proto input (omitted lists and maps sent empty: their default). */
  toInput(body: I): In;
}

/** A message whose fields are the view's, with `id` for `_id`. */
function mirror<V extends { _id: string }>(m: Omit<V, '_id'> & { id: string }): V {
  const { id, ...rest } = m;
  return { _id: id, ...rest } as unknown as V;
}

function common(body: TaxonomyInput): pb.BrandInput {
  return { code: body.code, name: body.name, description: body.description ?? {}, enabled: body.enabled, tags: body.tags ?? [] };
}

/** Brands. */
export const brandCodec: TaxonomyCodec<BrandView, pb.Brand, pb.BrandInput, TaxonomyInput> = { fromMessage: mirror, toInput: common };

/** Category trees. */
export const categoryTreeCodec: TaxonomyCodec<CategoryTreeView, pb.CategoryTree, pb.CategoryTreeInput, TaxonomyInput> = { fromMessage: mirror, toInput: common };

/** Categories. */
export const categoryCodec: TaxonomyCodec<CategoryView, pb.Category, pb.CategoryInput, CategoryInput> = {
  fromMessage: mirror,
  toInput: (body) => ({ ...common(body), category_tree_id: body.category_tree_id, parent_id: body.parent_id }),
};

/** Families: their attributes carry `_id` in REST and `id` in protos. */
export const familyCodec: TaxonomyCodec<FamilyView, pb.Family, pb.FamilyInput, FamilyInput> = {
  fromMessage: (m) => ({ ...mirror<FamilyView>({ ...m, attributes: [] }), attributes: m.attributes.map((a) => ({ _id: a.id, required: a.required })) }),
  toInput: (body) => ({
    ...common(body),
    attribute_groups: body.attribute_groups ?? [],
    attributes: (body.attributes ?? []).map((a) => ({ id: a._id, required: a.required })),
  }),
};

/** Catalogs. */
export const catalogCodec: TaxonomyCodec<CatalogView, pb.Catalog, pb.CatalogInput, CatalogInput> = {
  fromMessage: mirror,
  toInput: (body) => ({ ...common(body), user_groups: body.user_groups ?? [] }),
};
