import { z, type ZodType } from 'zod';
import { RawJson, stringifyWithRaw } from '@pim/db';
import { requireId } from '@pim/ids';
import { codeNames, collectionInfo, collectionPath, withArticle } from '@pim/resources';
import { buildEnvelope, expandables, parseListQuery, type ResourceDecl } from '@pim/query';
import type { Api } from './route';
import { etag, etagHeaders, expectedVersion, ifMatchHeader, locationHeaders } from './conditional';
import { toProtoListQuery } from '@pim/rpc';
import { expandParam, listQueryDoc } from './list';
import { envelopeSchema } from '../openapi/envelope';
import type { RecordClient } from './record.client';
import { expandRecords, expandsInPlace, type BatchLoader, type LinkExpansions } from './expand';
import { splitNestedFilters } from './nested-filters';

/** How one resource crosses between REST (views, bodies) and gRPC (messages, inputs). */
export interface RecordCodec<V, M, In, I> {
  /** Proto message → the API's record (`id` is `_id` in REST). */
  fromMessage(m: M): V;
  /** The API's validated body → proto input (omitted lists and maps sent empty: their default). */
  toInput(body: I): In;
}

/**
 * One declared resource as the gateway serves it; its routes are derived from it. Its identity —
 * path (`/category-trees`, `/attributes/:id/options` under its parent), names (`CategoryTree` →
 * createCategoryTree, CategoryTreeList), words (`category tree`), tag and scopes
 * (`<collection>:read|write`) — comes from its collection in `@pim/resources`.
 */
export interface RecordRouteSpec<V extends { _id: string; version: number }, M, In, I> {
  /** The collection: `brands`, `attribute_options`. */
  collection: string;
  /** Path parameter of one record of a nested collection (default: `<last word of its label>Id`, `optionId`). */
  idParam?: string;
  /** The field unique among live records, for descriptions (default `code`). */
  handle?: string;
  /** What `_search` looks in, for descriptions (default `code and every language of name`). */
  searches?: string;
  schemas: { input: z.ZodType<I>; patch: ZodType; view: z.ZodObject };
  listDecl: ResourceDecl;
  /** OpenAPI descriptions of list parameters that the generic wording would get wrong. */
  listParams?: Record<string, ZodType>;
  /** Prefix of nested filters the owner checks itself (`attributes.` → `attributes.<key>=v`), passed through as filters. */
  nestedFilters?: string;
  /** Expand names whose records go into the links of the view field of the same name (`groups` → `groups[].group`). */
  links?: LinkExpansions;
  /**
   * Looked up when a request arrives (with its path parameters, for a nested resource), so routes
   * can be declared (for the OpenAPI document) without a connection.
   */
  client: (params: Record<string, string>) => Omit<RecordClient<M, In>, 'batchGet'>;
  codec: RecordCodec<V, M, In, I>;
  /**
   * What a create answers when it is more than the record (a webhook and its signing secret,
   * shown once): the response schema, and the body from the record and the owner's whole reply.
   */
  created?: { schema: ZodType; description: string; body(record: V, reply: Record<string, unknown>): unknown };
  /** What the create route says, when more than its handle's uniqueness matters (an export is queued). */
  createDescription?: string;
  /**
   * Who sees which records, when some callers see only some of them (a user's own exports): added
   * to the list's and the get's descriptions.
   */
  visibility?: string;
  /** Statuses a create may answer besides the common ones (404: it names a product the caller cannot see). */
  createErrors?: number[];
  /**
   * `PUT <path>`: creates the record the body's handle names, or writes the given fields onto the
   * live one (omitted fields keep their values); answers 200 with the record (plus what `body` adds
   * when it was created).
   */
  upsert?: {
    description: string;
    schema: ZodType;
    call(
      input: In,
      expectedVersion: number | undefined,
    ): Promise<{ data?: M; created: boolean } & Record<string, unknown>>;
    body(record: V, reply: Record<string, unknown>): unknown;
  };
  /**
   * Routes the resource does not have by design: `create` (it is created by a route of its own,
   * an upload), `replace` (it is never written whole: patch only) and `patch` (never changed by a
   * caller after creation).
   */
  without?: ('create' | 'replace' | 'patch')[];
}

/** A collection's identity as its routes show it: path, names, words, tag, the parent's label. */
export function routeIdentity(collection: string, idParam?: string) {
  const info = collectionInfo(collection);
  const { one, many } = codeNames(info);
  const lastWord = info.label.split(' ').pop() ?? info.label;
  return {
    path: collectionPath(info),
    one,
    many,
    label: info.label,
    labels: info.labels,
    tag: `${info.labels[0].toUpperCase()}${info.labels.slice(1)}`,
    parent: info.parent === undefined ? undefined : collectionInfo(info.parent).label,
    idParam: idParam ?? (info.parent === undefined ? 'id' : `${lastWord}Id`),
  };
}

/** The envelope serialized with `data` replaced by an already serialized JSON array. */
export function withRawData(envelope: { data: unknown[] }, dataJson: Uint8Array): Buffer {
  const raw = Buffer.from(dataJson.buffer, dataJson.byteOffset, dataJson.byteLength).toString('utf8');
  return Buffer.from(stringifyWithRaw({ ...envelope, data: new RawJson(raw) }), 'utf8');
}

/** The version an If-Match header asks for. */
const ifMatch = (headers: Record<string, unknown>) => expectedVersion(headers['if-match'] as string | undefined);

/** The view with the records a list may expand: beside their ids, or inside the links they come from. */
function listItemSchema(
  view: z.ZodObject,
  one: string,
  decl: ResourceDecl,
  links: LinkExpansions,
  schemasByCollection: Record<string, z.ZodObject>,
): z.ZodObject {
  const expansions = expandables(decl);
  if (expansions.length === 0) return view;
  const extra = Object.fromEntries(
    expansions.map((e) => {
      const related = schemasByCollection[e.collection];
      const key = links[e.as];
      if (expandsInPlace(e, links)) {
        // Ids without expand; with it the records, or `{_id}` alone for a record that is gone.
        const id = (view.shape[e.field] as z.ZodArray<ZodType>).element;
        const item = z.union([id, related, z.strictObject({ _id: id })]);
        return [
          e.as,
          z
            .array(item)
            .max(1_000)
            .meta({
              description: `The ids; with expand=${e.as}, the records they name in the same order (an id whose record is gone stays as {_id})`,
            }),
        ];
      }
      if (key === undefined)
        return [
          e.as,
          // A union with null (not .nullable()) keeps the record a reference to its schema.
          z
            .union([related, z.null()])
            .optional()
            .meta({ description: `With expand=${e.as}: the record ${e.field} names (null when it has none)` }),
        ];
      const link = (view.shape[e.as] as z.ZodArray<z.ZodObject>).element.extend({
        [key]: z
          .union([related, z.null()])
          .optional()
          .meta({ description: `With expand=${e.as}: the record this link names (null when it is gone)` }),
      });
      return [e.as, z.array(link).max(1_000)];
    }),
  );
  const shown = (view.meta() as { description?: string } | undefined)?.description ?? one;
  return view.extend(extra).meta({
    id: `${one}ListItem`,
    description: `${shown}, with the records it names embedded where expand asks for them`,
  });
}

/** Declares POST, GET (list), GET/PUT/PATCH/DELETE by id of one catalog resource. */
export function recordRoutes<V extends { _id: string; version: number }, M, In, I>(
  api: Api,
  spec: RecordRouteSpec<V, M, In, I>,
  limits: { maxLimit: number; defaultLimit: number },
  loaders: Record<string, BatchLoader>,
  schemasByCollection: Record<string, z.ZodObject>,
): void {
  const { collection, codec, listDecl } = spec;
  const { path, one, many, label, labels, tag, parent, idParam } = routeIdentity(collection, spec.idParam);
  const handle = spec.handle ?? 'code';
  const links = spec.links ?? {};
  const tags = [tag];
  const read = `${collection}:read` as const;
  const write = `${collection}:write` as const;
  const item = `${path}/:${idParam}`;
  const recordId = (params: Record<string, string>) => requireId(params[idParam], label);
  const fromMessage = (m: M | undefined): V => {
    if (!m) throw new Error(`the ${collectionInfo(collection).app} app answered without ${withArticle(label)}`);
    return codec.fromMessage(m);
  };
  const ok = (status: number, record: V) => ({ status, body: record, headers: { ETag: etag(record.version) } });
  // A nested resource's parent id is checked here, so a malformed one is a 400 before any call.
  const client = (params: Record<string, string>) => {
    if (parent !== undefined) requireId(params.id, parent, 'id');
    return spec.client(params);
  };

  const list = envelopeSchema(
    `${one}List`,
    listItemSchema(spec.schemas.view, one, listDecl, links, schemasByCollection),
    limits.maxLimit,
  );
  const listQuery = listQueryDoc(one, labels, listDecl, limits.maxLimit, spec.listParams);
  const byIdExpand = expandParam(listDecl);

  const without = spec.without ?? [];
  if (!without.includes('create'))
    api.route({
      method: 'post',
      path,
      operationId: `create${one}`,
      scope: write,
      summary: `Create ${withArticle(label)}`,
      description:
        spec.createDescription ??
        `The ${handle} must be free among live records of the collection${parent ? ` with the same ${parent}` : ''} (409 otherwise).`,
      tags,
      body: spec.schemas.input,
      ...(spec.createErrors ? { errors: spec.createErrors } : {}),
      responses: {
        201: {
          description: spec.created?.description ?? `The new ${label}`,
          schema: spec.created?.schema ?? spec.schemas.view,
          headers: etagHeaders.extend(locationHeaders.shape),
        },
      },
      handler: async ({ body, params, path: at }) => {
        const reply = await client(params).create!({ input: codec.toInput(body as I) });
        const record = fromMessage(reply.data);
        const headers = { ETag: etag(record.version), Location: `${at}/${record._id}` };
        return { status: 201, body: spec.created ? spec.created.body(record, reply) : record, headers };
      },
    });

  const upsert = spec.upsert;
  if (upsert) {
    api.route({
      method: 'put',
      path,
      operationId: `upsert${one}`,
      scope: write,
      summary: `Create or update the ${label} of ${withArticle(handle)}`,
      description: upsert.description,
      tags,
      body: spec.schemas.input,
      requestHeaders: ifMatchHeader,
      errors: [409, 412],
      responses: { 200: { description: `The ${label} after the write`, schema: upsert.schema, headers: etagHeaders } },
      handler: async ({ body, headers }) => {
        const reply = await upsert.call(codec.toInput(body as I), ifMatch(headers));
        const record = fromMessage(reply.data);
        return { status: 200, body: upsert.body(record, reply), headers: { ETag: etag(record.version) } };
      },
    });
  }

  api.route({
    method: 'get',
    path,
    operationId: `list${many}`,
    scope: read,
    summary: `List ${labels}`,
    description:
      `Pagination, sorting, filters and \`_search\` (case- and accent-insensitive, over ${spec.searches ?? 'code and every language of name'}) as in every list.` +
      (spec.visibility ? ` ${spec.visibility}` : ''),
    tags,
    listQuery: listQuery,
    responses: { 200: { description: 'A page of records', schema: list } },
    handler: async ({ query, params, path: at, origin, principal }) => {
      const { rest, nested } = splitNestedFilters(query, spec.nestedFilters);
      const parsed = parseListQuery(listDecl, rest, limits);
      const q = { ...parsed, filters: [...parsed.filters, ...nested] };
      const c = client(params);
      if (c.listJson && q.expand.length === 0) {
        // Nothing to expand: the owner's serialized records go into the envelope as they are.
        const r = await c.listJson({ query: toProtoListQuery(q) });
        const envelope = buildEnvelope({
          query: q,
          total: r.page_info?.total ?? 0,
          data: [],
          path: `${origin}${at}`,
          raw: query,
          decl: listDecl,
        });
        return { status: 200, json: withRawData(envelope, r.data_json) };
      }
      const r = await c.list({ query: toProtoListQuery(q) });
      const data = await expandRecords(listDecl, r.data.map(fromMessage), q.expand, loaders, principal, links);
      return {
        status: 200,
        body: buildEnvelope({
          query: q,
          total: r.page_info?.total ?? 0,
          data,
          path: `${origin}${at}`,
          raw: query,
          decl: listDecl,
        }),
      };
    },
  });

  api.route({
    method: 'get',
    path: item,
    operationId: `get${one}`,
    scope: read,
    summary: `Get ${withArticle(label)}`,
    ...(spec.visibility ? { description: spec.visibility } : {}),
    tags,
    ...(byIdExpand ? { query: z.object({ expand: byIdExpand }) } : {}),
    responses: {
      200: {
        description: `The ${label}`,
        schema: byIdExpand
          ? listItemSchema(spec.schemas.view, one, listDecl, links, schemasByCollection)
          : spec.schemas.view,
        headers: etagHeaders,
      },
    },
    handler: async ({ params, query, principal }) => {
      const c = client(params);
      const expand = typeof query.expand === 'string' ? [...new Set(query.expand.split(','))] : [];
      if (expand.length > 0) {
        // The records it names embedded, as a list embeds them.
        const record = fromMessage((await c.get({ id: recordId(params) })).data);
        const [expanded] = await expandRecords(listDecl, [record], expand, loaders, principal, links);
        return ok(200, expanded);
      }
      if (!c.getJson) return ok(200, fromMessage((await c.get({ id: recordId(params) })).data));
      // Served as the owner rendered it: no decode and re-encode of a large record here.
      const r = await c.getJson({ id: recordId(params) });
      return { status: 200, json: r.json, headers: { ETag: etag(r.version) } };
    },
  });

  if (!without.includes('replace'))
    api.route({
      method: 'put',
      path: item,
      operationId: `replace${one}`,
      scope: write,
      summary: `Replace ${withArticle(label)}`,
      description: 'Replaces every writable field; omitted optional fields return to their defaults.',
      tags,
      body: spec.schemas.input,
      requestHeaders: ifMatchHeader,
      errors: [409, 412],
      responses: {
        200: { description: `The ${label} after the write`, schema: spec.schemas.view, headers: etagHeaders },
      },
      handler: async ({ params, body, headers }) => {
        const id = recordId(params);
        const r = await client(params).update!({
          id,
          input: codec.toInput(body as I),
          expected_version: ifMatch(headers),
        });
        return ok(200, fromMessage(r.data));
      },
    });

  if (!without.includes('patch'))
    api.route({
      method: 'patch',
      path: item,
      operationId: `patch${one}`,
      scope: write,
      summary: `Patch ${withArticle(label)}`,
      description:
        'JSON merge patch (RFC 7396): fields present are written; objects such as `name` merge per language (`{"name": {"es": null}}` removes one); `null` returns an optional field to its default.',
      tags,
      body: spec.schemas.patch,
      requestHeaders: ifMatchHeader,
      errors: [409, 412],
      responses: {
        200: { description: `The ${label} after the write`, schema: spec.schemas.view, headers: etagHeaders },
      },
      handler: async ({ params, body, headers }) => {
        const id = recordId(params);
        const r = await client(params).patch!({
          id,
          patch: body as Record<string, unknown>,
          expected_version: ifMatch(headers),
        });
        return ok(200, fromMessage(r.data));
      },
    });

  api.route({
    method: 'delete',
    path: item,
    operationId: `delete${one}`,
    scope: write,
    summary: `Delete ${withArticle(label)}`,
    description: `Soft delete: the record vanishes from gets and lists and its ${handle} becomes free.`,
    tags,
    requestHeaders: ifMatchHeader,
    errors: [409, 412],
    responses: { 204: { description: 'Deleted', component: 'Deleted' } },
    handler: async ({ params, headers }) => {
      await client(params).delete({
        id: recordId(params),
        expected_version: ifMatch(headers),
      });
      return { status: 204 };
    },
  });
}
