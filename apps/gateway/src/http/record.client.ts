import type { common } from '@pim/contracts';

/** The seven calls every record service answers, whatever its generated client names them. */
export interface RecordClient<M, In> {
  create(req: { input: In }): Promise<{ data?: M }>;
  get(req: { id: string }): Promise<{ data?: M }>;
  update(req: { id: string; input: In; expected_version?: number }): Promise<{ data?: M }>;
  patch(req: { id: string; patch: Record<string, unknown>; expected_version?: number }): Promise<{ data?: M }>;
  delete(req: { id: string; expected_version?: number }): Promise<{ data?: M }>;
  list(req: { query: common.ListQuery }): Promise<{ data: M[]; page_info?: common.PageInfo }>;
  /** By ids and by handles (`codes`, `keys`, option `values`). */
  batchGet(req: { ids: string[]; handles: string[] }): Promise<{ data: M[] }>;
  /** One record as REST shows it, serialized by its owner (resources that keep a rendering). */
  getJson?(req: { id: string }): Promise<{ version: number; json: Uint8Array }>;
  /** A page of records as REST shows them, one JSON array serialized by their owner. */
  listJson?(req: { query: common.ListQuery }): Promise<{ data_json: Uint8Array; page_info?: common.PageInfo }>;
}
