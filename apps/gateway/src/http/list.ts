import { z } from 'zod';
import type { common } from '@pim/contracts';
import type { ListQuery, ResourceDecl } from '@pim/query';

/** The OpenAPI description of a list's query parameters, derived from the resource declaration. */
export function listQuerySchema(decl: ResourceDecl, maxLimit: number): z.ZodObject {
  const q = (description: string, example?: string) => z.string().max(1000).optional().meta({ description, example });
  const shape: Record<string, z.ZodType> = {
    page: z.string().regex(/^\d+$/).max(9).optional().meta({ description: 'Page number, from 1', example: '1' }),
    limit: z.string().regex(/^\d+$/).max(9).optional().meta({ description: `Page size (default 25, at most ${maxLimit})`, example: '25' }),
    skip: z.string().regex(/^\d+$/).max(9).optional().meta({ description: 'Records to skip (instead of page)' }),
    sort: q('Comma-separated fields; a leading - sorts descending. Default -created_at', '-created_at'),
  };
  const searchable = Object.entries(decl.fields).filter(([, f]) => f.searchable).map(([n]) => n);
  if (searchable.length) shape._search = q(`Case- and accent-insensitive text over: ${searchable.join(', ')}`);
  const expandable = Object.values(decl.fields).flatMap((f) => (f.expand ? [f.expand.as] : []));
  if (expandable.length) shape.expand = q(`Related records to embed: ${expandable.join(', ')}`);
  for (const [name, f] of Object.entries(decl.fields)) {
    if (!f.filterable) continue;
    shape[name] = q(`Equals (on arrays: contains). Also ${name}_in, ${name}_nin, ${name}_ne, ${name}_exists` + (['number', 'date', 'id'].includes(f.type) ? `, ${name}_gt, ${name}_gte, ${name}_lt, ${name}_lte` : ''));
  }
  return z.object(shape);
}

/** The parsed list query as the proto message every List RPC takes. */
export function toProtoListQuery(q: ListQuery): common.ListQuery {
  return {
    page: q.page,
    limit: q.limit,
    skip: q.skip,
    sort: q.sort.map((s) => ({ field: s.field, direction: s.direction })),
    filters: q.filters.map((f) => ({ field: f.field, op: f.op, values: f.values })),
    search: q.search ?? '',
    expand: q.expand,
  };
}
