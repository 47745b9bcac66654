import { expandables, type ResourceDecl } from '@pim/query';
import { authorize, type Principal } from '../../auth/scopes';

/** Reads records of one collection by ids (one BatchGet to its owner). */
export type BatchLoader = (ids: string[]) => Promise<{ _id: string }[]>;

/**
 * Embeds the related records a list asked for (`expand=category_tree,parent`) beside their ids:
 * one BatchGet per expand name for the whole page, never one call per record. An id whose record
 * is gone (or absent, as a root's parent) expands to null; an id list to the records found. The
 * caller needs read access to each collection it expands.
 */
export async function expandRecords<V extends object>(
  decl: ResourceDecl,
  records: V[],
  names: string[],
  loaders: Record<string, BatchLoader>,
  principal: Principal,
): Promise<V[]> {
  const wanted = expandables(decl).filter((e) => names.includes(e.as));
  if (wanted.length === 0 || records.length === 0) return records;
  const idsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : typeof v === 'string' ? [v] : []);
  const related = await Promise.all(
    wanted.map(async (e) => {
      authorize(principal, `${e.collection}:read`);
      const load = loaders[e.collection];
      if (!load) throw new Error(`no loader for the expandable collection ${e.collection}`);
      const ids = [...new Set(records.flatMap((r) => idsOf((r as Record<string, unknown>)[e.field])))];
      const found = ids.length > 0 ? await load(ids) : [];
      return { ...e, byId: new Map(found.map((x) => [x._id, x])) };
    }),
  );
  return records.map((record) => {
    const out: Record<string, unknown> = {};
    const placed = new Set<string>();
    const embed = (e: (typeof related)[number], value: unknown) => {
      out[e.as] = Array.isArray(value) ? idsOf(value).flatMap((id) => (e.byId.has(id) ? [e.byId.get(id)] : [])) : (e.byId.get(value as string) ?? null);
      placed.add(e.as);
    };
    for (const [key, value] of Object.entries(record)) {
      out[key] = value;
      for (const e of related) if (e.field === key) embed(e, value);
    }
    for (const e of related) if (!placed.has(e.as)) embed(e, undefined);
    return out as V;
  });
}
