import type { common } from '@pim/contracts';

/** The calls every record service answers, whatever its generated client names them. */
export interface RecordClient<M, In> {
  /** Absent for a resource created another way (an import, by an upload). */
  create?(req: { input: In }): Promise<{ data?: M }>;
  get(req: { id: string }): Promise<{ data?: M }>;
  /** Absent for a resource that is never replaced as a whole. */
  update?(req: { id: string; input: In; expected_version?: number }): Promise<{ data?: M }>;
  /** Absent for a resource a caller never changes after creating it (an export). */
  patch?(req: { id: string; patch: Record<string, unknown>; expected_version?: number }): Promise<{ data?: M }>;
  delete(req: { id: string; expected_version?: number }): Promise<{ data?: M }>;
  list(req: { query: common.ListQuery }): Promise<{ data: M[]; page_info?: common.PageInfo }>;
  /** By ids and by handles (`codes`, `keys`, option `values`). */
  batchGet(req: { ids: string[]; handles: string[] }): Promise<{ data: M[] }>;
  /** One record as REST shows it, serialized by its owner (resources that keep a rendering). */
  getJson?(req: { id: string }): Promise<{ version: number; json: Uint8Array }>;
  /** A page of records as REST shows them, one JSON array serialized by their owner. */
  listJson?(req: { query: common.ListQuery }): Promise<{ data_json: Uint8Array; page_info?: common.PageInfo }>;
}

/** How a record service names its calls: `Brand` / `Brands`, and the field its BatchGet takes handles in. */
export interface RecordServiceNames {
  one: string;
  many: string;
  /** `codes`, `keys`, `values`. */
  handles: string;
  /** Calls the service does not have by design: `Create` (created another way), `Update` (never replaced), `Patch` (never changed). */
  without?: ('create' | 'update' | 'patch')[];
}

/** A generated service definition: its methods by lowerCamel name (ts-proto's `XxxServiceService`). */
export type ServiceDefinitionLike = Record<string, { path: string }>;

/**
 * The record calls of a generated client, found by name in its service definition
 * (`CreateBrand`, `ListBrands`, `BatchGetBrands`, and `GetBrandJson` / `ListBrandsJson` when the
 * service has them). A method the definition lacks (and `without` does not name) fails here, at start-up, naming it. `scope`
 * goes into every request (the parent of a nested resource: `{ attribute_id }`).
 */
export function recordClient<M, In>(
  client: object,
  definition: ServiceDefinitionLike,
  names: RecordServiceNames,
  scope: Record<string, string> = {},
): RecordClient<M, In> {
  const lower = (s: string) => `${s[0].toLowerCase()}${s.slice(1)}`;
  const has = (method: string) => Object.prototype.hasOwnProperty.call(definition, lower(method));
  const call = (method: string) => {
    if (!has(method)) {
      const service = Object.values(definition)[0]?.path.split('/')[1] ?? 'the service';
      throw new Error(`${service} has no ${method}: it is not a record service for ${names.one}/${names.many}`);
    }
    const fn = (client as Record<string, (req: unknown) => Promise<never>>)[lower(method)];
    return (req: object) => fn.call(client, { ...scope, ...req });
  };
  const { one, many } = names;
  const without = names.without ?? [];
  const c: RecordClient<M, In> = {
    ...(without.includes('create') ? {} : { create: call(`Create${one}`) }),
    get: call(`Get${one}`),
    ...(without.includes('update') ? {} : { update: call(`Update${one}`) }),
    ...(without.includes('patch') ? {} : { patch: call(`Patch${one}`) }),
    delete: call(`Delete${one}`),
    list: call(`List${many}`),
    batchGet: (
      (batch) => (r: { ids: string[]; handles: string[] }) =>
        batch({ ids: r.ids, [names.handles]: r.handles })
    )(call(`BatchGet${many}`)),
  };
  if (has(`Get${one}Json`)) c.getJson = call(`Get${one}Json`);
  if (has(`List${many}Json`)) c.listJson = call(`List${many}Json`);
  return c;
}
