import { expandables, type ResourceDecl } from '@pim/query';
import { authorize, type Principal } from '../auth/scopes';

/** Reads records of one collection by ids (one BatchGet to its owner). */
export type BatchLoader = (ids: string[]) => Promise<{ _id: string }[]>;

/**
 * Expand names whose records go inside the links of the view field of the same name, under the
 * given key: `{ groups: 'group' }` turns `groups: [{_id, required}]` into
 * `groups: [{_id, required, group: {...}}]` (the record beside the id it comes from).
 */
export type LinkExpansions = Record<string, string>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The ids a field holds: an id, a list of ids, or (links) a list of `{_id, …}`. */
function idsOf(v: unknown): string[] {
  if (typeof v === 'string') return [v];
  if (!Array.isArray(v)) return [];
  return v.flatMap((x) => (typeof x === 'string' ? [x] : isObject(x) && typeof x._id === 'string' ? [x._id] : []));
}

/** Whether an expansion replaces its own list of ids (`categories` → `categories`) instead of adding a field. */
export const expandsInPlace = (e: { as: string; field: string }, links: LinkExpansions): boolean =>
  e.as === e.field && links[e.as] === undefined;

/**
 * Embeds the related records a list asked for (`expand=category_tree,parent`) beside their ids:
 * one BatchGet per expand name for the whole page, never one call per record. An id whose record
 * is gone (or absent, as a root's parent) expands to null; an id list to the records found; a
 * link (see LinkExpansions) gets its record, or null, inside it; a list of ids expanded in place
 * (see expandsInPlace) becomes, in the same order, the records (each keeps its `_id`), an id whose
 * record is gone staying as `{_id}` alone. The caller needs read access to each collection it
 * expands.
 */
export async function expandRecords<V extends object>(
  decl: ResourceDecl,
  records: V[],
  names: string[],
  loaders: Record<string, BatchLoader>,
  principal: Principal,
  links: LinkExpansions = {},
): Promise<V[]> {
  const wanted = expandables(decl).filter((e) => names.includes(e.as));
  if (wanted.length === 0 || records.length === 0) return records;
  const related = await Promise.all(
    wanted.map(async (e) => {
      authorize(principal, `${e.collection}:read`);
      const load = loaders[e.collection];
      if (!load) throw new Error(`no loader for the expandable collection ${e.collection}`);
      const link = links[e.as];
      // Links hold their ids in the view field named like the expansion; other expansions read the declared id field.
      const source = link !== undefined ? e.as : e.field;
      const ids = [...new Set(records.flatMap((r) => idsOf((r as Record<string, unknown>)[source])))];
      const found = ids.length > 0 ? await load(ids) : [];
      return { ...e, link, byId: new Map(found.map((x) => [x._id, x])) };
    }),
  );
  const beside = related.filter((e) => e.link === undefined && !expandsInPlace(e, links));
  const inside = new Map(related.flatMap((e) => (e.link !== undefined ? [[e.as, e] as const] : [])));
  const inPlace = new Map(related.flatMap((e) => (expandsInPlace(e, links) ? [[e.field, e] as const] : [])));
  return records.map((record) => {
    const out: Record<string, unknown> = {};
    const placed = new Set<string>();
    const embed = (e: (typeof related)[number], value: unknown) => {
      out[e.as] = Array.isArray(value)
        ? idsOf(value).flatMap((id) => (e.byId.has(id) ? [e.byId.get(id)] : []))
        : (e.byId.get(value as string) ?? null);
      placed.add(e.as);
    };
    for (const [key, value] of Object.entries(record)) {
      const e = inside.get(key);
      const own = inPlace.get(key);
      if (own && Array.isArray(value)) out[key] = idsOf(value).map((id) => own.byId.get(id) ?? { _id: id });
      else
        out[key] =
          e && Array.isArray(value)
            ? value.map((l) => (isObject(l) ? { ...l, [e.link!]: e.byId.get(l._id as string) ?? null } : l))
            : value;
      for (const b of beside) if (b.field === key) embed(b, value);
    }
    for (const b of beside) if (!placed.has(b.as)) embed(b, undefined);
    return out as V;
  });
}
