import type { ZodType } from 'zod';
import { buildEnvelope, parseListQuery, searchableFields, type Filter, type ResourceDecl } from '@pim/query';
import { listQueryDoc } from './list';
import type { Api } from './route';
import type { Scope } from '../auth/scopes';
import { envelopeSchema } from '../openapi/envelope';

/** A list whose items the gateway holds itself (the collections, the event catalog): text fields only. */
export interface FixedList<T extends object> {
  path: string;
  operationId: string;
  scope: Scope;
  summary: string;
  description?: string;
  tags: string[];
  /** Its fields: each a `string` field, filterable and sortable as the declaration says. */
  decl: ResourceDecl;
  /** The schema of one item, and the id its list's schema is registered under. */
  item: ZodType;
  listId: string;
  items: readonly T[];
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const fieldOf = (item: object, field: string): unknown => (item as Record<string, unknown>)[field];

/** Whether an item passes one filter of the list language (text fields: =, _ne, _in, _nin, _exists). */
function passes(item: object, f: Filter): boolean {
  const value = text(fieldOf(item, f.field));
  switch (f.op) {
    case 'eq':
      return value === f.values[0];
    case 'ne':
      return value !== f.values[0];
    case 'in':
      return value !== undefined && f.values.includes(value);
    case 'nin':
      return value === undefined || !f.values.includes(value);
    case 'exists':
      return (value !== undefined) === (f.values[0] === 'true');
    default:
      return false;
  }
}

const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * Declares a GET list over items the gateway holds, answered in the list envelope every list
 * answers, with the same pagination, sort, filters and `_search` (case- and accent-insensitive,
 * over the declaration's searchable fields).
 */
export function fixedListRoute<T extends object>(
  api: Api,
  list: FixedList<T>,
  limits: { maxLimit: number; defaultLimit: number },
): void {
  const searched = searchableFields(list.decl);
  api.route({
    method: 'get',
    path: list.path,
    operationId: list.operationId,
    scope: list.scope,
    summary: list.summary,
    ...(list.description ? { description: list.description } : {}),
    tags: list.tags,
    listQuery: listQueryDoc(
      list.listId.replace(/List$/, ''),
      list.path.slice(1).replace(/-/g, ' '),
      list.decl,
      limits.maxLimit,
    ),
    responses: {
      200: { description: 'A page of the list', schema: envelopeSchema(list.listId, list.item, limits.maxLimit) },
    },
    handler: async ({ query, path, origin }) => {
      const q = parseListQuery(list.decl, query, limits);
      const needle = q.search === undefined ? undefined : fold(q.search);
      const matching = list.items.filter(
        (item) =>
          q.filters.every((f) => passes(item, f)) &&
          (needle === undefined || searched.some((field) => fold(text(fieldOf(item, field)) ?? '').includes(needle))),
      );
      const sorted = [...matching].sort((a, b) => {
        for (const s of q.sort) {
          const order = (text(fieldOf(a, s.field)) ?? '').localeCompare(text(fieldOf(b, s.field)) ?? '');
          if (order !== 0) return s.direction === 'asc' ? order : -order;
        }
        return 0;
      });
      return {
        status: 200,
        body: buildEnvelope({
          query: q,
          total: sorted.length,
          data: sorted.slice(q.skip, q.skip + q.limit),
          path: `${origin}${path}`,
          raw: query,
          decl: list.decl,
        }),
      };
    },
  });
}
