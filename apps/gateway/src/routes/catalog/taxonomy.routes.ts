import { z, type ZodType } from 'zod';
import { requireId } from '@pim/ids';
import { buildEnvelope, expandables, parseListQuery, type ResourceDecl } from '@pim/query';
import type { Api } from '../../http/route';
import { etag, expectedVersion } from '../../http/conditional';
import { listQuerySchema, toProtoListQuery } from '../../http/list';
import { envelopeSchema } from '../../openapi/envelope';
import type { TaxonomyClient } from './catalog.clients';
import type { TaxonomyCodec } from './taxonomy.codecs';
import { expandRecords, type BatchLoader } from './expand';

/** One taxonomy resource as the gateway serves it; the seven routes are derived from it. */
export interface TaxonomyRouteSpec<V extends { _id: string; version: number }, M, In, I> {
  /** REST path of the list: `/brands`, `/category-trees`. */
  path: string;
  /** The collection: scopes `<collection>:read|write`. */
  collection: string;
  /** Names for operation ids and schemas: `Brand`/`Brands` → createBrand, listBrands, BrandList. */
  one: string;
  many: string;
  /** The record in words, one and many: `brand`/`brands`, `category tree`/`category trees`. */
  label: string;
  labels: string;
  tag: string;
  schemas: { input: z.ZodType<I>; patch: ZodType; view: z.ZodObject };
  listDecl: ResourceDecl;
  /** OpenAPI descriptions of list parameters that the generic wording would get wrong. */
  listParams?: Record<string, ZodType>;
  /** Looked up when a request arrives, so routes can be declared (for the OpenAPI document) without a connection. */
  client: () => TaxonomyClient<M, In>;
  codec: TaxonomyCodec<V, M, In, I>;
}

const ifMatchHeader = z.object({
  'if-match': z.string().max(32).optional().meta({ description: 'Write only if the record is still at this ETag', example: '"3"' }),
});
const etagHeaders = z.object({ ETag: z.string().max(32).meta({ description: 'Version of the record', example: '"3"' }) });

/** Declares POST, GET (list), GET/PUT/PATCH/DELETE by id of one taxonomy resource. */
export function taxonomyRoutes<V extends { _id: string; version: number }, M, In, I>(
  api: Api,
  spec: TaxonomyRouteSpec<V, M, In, I>,
  limits: { maxLimit: number; defaultLimit: number },
  loaders: Record<string, BatchLoader>,
  schemasByCollection: Record<string, z.ZodObject>,
): void {
  const { path, collection, one, many, label, codec, listDecl } = spec;
  const client = () => spec.client();
  const tags = [spec.tag];
  const read = `${collection}:read` as const;
  const write = `${collection}:write` as const;
  const idParam = (id: string) => requireId(id, label);
  const fromMessage = (m: M | undefined): V => {
    if (!m) throw new Error(`catalog answered without a ${label}`);
    return codec.fromMessage(m);
  };
  const ok = (status: number, record: V) => ({ status, body: record, headers: { ETag: etag(record.version) } });

  // List items may carry the records they expand, beside the ids they come from.
  const expansions = expandables(listDecl);
  const item = expansions.length
    ? spec.schemas.view
        .extend(Object.fromEntries(expansions.map((e) => [e.as, schemasByCollection[e.collection].nullable().optional().meta({ description: `With expand=${e.as}: the record ${e.field} names (null when it has none)` })])))
        .meta({ id: `${one}ListItem` })
    : spec.schemas.view;
  const list = envelopeSchema(`${one}List`, item, limits.maxLimit);
  const listQuery = listQuerySchema(listDecl, limits.maxLimit).extend(spec.listParams ?? {});

  api.route({
    method: 'post',
    path,
    operationId: `create${one}`,
    scope: write,
    summary: `Create a ${label}`,
    description: 'The code must be free among live records of the collection (409 otherwise).',
    tags,
    body: spec.schemas.input,
    responses: { 201: { description: `The new ${label}`, schema: spec.schemas.view, headers: etagHeaders } },
    handler: async ({ body, path: at }) => {
      const record = fromMessage((await client().create({ input: codec.toInput(body as I) })).data);
      const r = ok(201, record);
      return { ...r, headers: { ...r.headers, Location: `${at}/${record._id}` } };
    },
  });

  api.route({
    method: 'get',
    path,
    operationId: `list${many}`,
    scope: read,
    summary: `List ${spec.labels}`,
    description: 'Pagination, sorting, filters and `_search` (case- and accent-insensitive, over code and every language of name) as in every list.',
    tags,
    query: listQuery,
    responses: { 200: { description: 'A page of records', schema: list } },
    handler: async ({ query, path: at, principal }) => {
      const q = parseListQuery(listDecl, query, limits);
      const r = await client().list({ query: toProtoListQuery(q) });
      const data = await expandRecords(listDecl, r.data.map(fromMessage), q.expand, loaders, principal);
      return { status: 200, body: buildEnvelope({ query: q, total: r.page_info?.total ?? 0, data, path: at, raw: query, decl: listDecl }) };
    },
  });

  api.route({
    method: 'get',
    path: `${path}/:id`,
    operationId: `get${one}`,
    scope: read,
    summary: `Get a ${label}`,
    tags,
    responses: { 200: { description: `The ${label}`, schema: spec.schemas.view, headers: etagHeaders } },
    handler: async ({ params }) => ok(200, fromMessage((await client().get({ id: idParam(params.id) })).data)),
  });

  api.route({
    method: 'put',
    path: `${path}/:id`,
    operationId: `replace${one}`,
    scope: write,
    summary: `Replace a ${label}`,
    description: 'Replaces every writable field; omitted optional fields return to their defaults.',
    tags,
    body: spec.schemas.input,
    requestHeaders: ifMatchHeader,
    errors: [409, 412],
    responses: { 200: { description: `The ${label} after the write`, schema: spec.schemas.view, headers: etagHeaders } },
    handler: async ({ params, body, headers }) => {
      const id = idParam(params.id);
      const r = await client().update({ id, input: codec.toInput(body as I), expected_version: expectedVersion(headers['if-match'] as string | undefined) });
      return ok(200, fromMessage(r.data));
    },
  });

  api.route({
    method: 'patch',
    path: `${path}/:id`,
    operationId: `patch${one}`,
    scope: write,
    summary: `Patch a ${label}`,
    description: 'JSON merge patch (RFC 7396): fields present are written; objects such as `name` merge per language (`{"name": {"es": null}}` removes one); `null` returns an optional field to its default.',
    tags,
    body: spec.schemas.patch,
    requestHeaders: ifMatchHeader,
    errors: [409, 412],
    responses: { 200: { description: `The ${label} after the write`, schema: spec.schemas.view, headers: etagHeaders } },
    handler: async ({ params, body, headers }) => {
      const id = idParam(params.id);
      const r = await client().patch({ id, patch: body as Record<string, unknown>, expected_version: expectedVersion(headers['if-match'] as string | undefined) });
      return ok(200, fromMessage(r.data));
    },
  });

  api.route({
    method: 'delete',
    path: `${path}/:id`,
    operationId: `delete${one}`,
    scope: write,
    summary: `Delete a ${label}`,
    description: 'Soft delete: the record vanishes from gets and lists and its code becomes free.',
    tags,
    requestHeaders: ifMatchHeader,
    errors: [409, 412],
    responses: { 204: { description: 'Deleted' } },
    handler: async ({ params, headers }) => {
      await client().delete({ id: idParam(params.id), expected_version: expectedVersion(headers['if-match'] as string | undefined) });
      return { status: 204 };
    },
  });
}
