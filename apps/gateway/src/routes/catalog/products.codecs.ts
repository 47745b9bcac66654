import type { products as pb } from '@pim/contracts';
import type { ProductInput, ProductView } from '@pim/resources';
import type { RecordCodec } from '../../http/resource.routes';
import { mirror } from './taxonomy.codecs';

/** Products: catalogs carry `_id` in REST and `id` in protos; attributes and snapshots travel as Structs. */
export const productCodec: RecordCodec<ProductView, pb.Product, pb.ProductInput, ProductInput> = {
  fromMessage: (m) => {
    const view = mirror<ProductView>({ ...m, catalogs: [] } as never) as unknown as Record<string, unknown>;
    // Absent optional fields arrive as undefined; the REST shape leaves them out.
    for (const key of Object.keys(view)) if (view[key] === undefined) delete view[key];
    return {
      ...(view as unknown as ProductView),
      catalogs: m.catalogs.map((c) => ({ _id: c.id, user_groups: c.user_groups })),
      attributes: m.attributes ?? {},
      attributes_schema_snapshot: m.attributes_schema_snapshot ?? {},
      attributes_options_snapshot: m.attributes_options_snapshot ?? {},
    };
  },
  toInput: (body) => ({
    family_id: body.family_id,
    brand_id: body.brand_id,
    fulfilled: body.fulfilled,
    categories: body.categories ?? [],
    category_trees: body.category_trees ?? [],
    product_id: body.product_id,
    catalogs: (body.catalogs ?? []).map((c) => ({ id: c._id, user_groups: c.user_groups })),
    attribute_groups: body.attribute_groups ?? [],
    code: body.code,
    name: body.name,
    description: body.description ?? {},
    image: body.image,
    images: body.images ?? [],
    attributes: body.attributes,
    enabled: body.enabled,
    tags: body.tags ?? [],
    type: body.type,
    product_approval: body.product_approval,
    last_approval_at: body.last_approval_at,
    published: body.published,
    last_publishment_id: body.last_publishment_id,
    last_published_at: body.last_published_at,
    publishments: body.publishments ?? [],
  }),
};
