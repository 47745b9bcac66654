import type { EntityManager } from 'typeorm';
import { ConflictError, ValidationError, withLinks, type ApiLink, type ErrorDetail } from '@pim/errors';
import { collectionInfo } from '@pim/resources';

/** One id a record names, and the field of the body it came from (`groups.1._id`). */
export interface Reference {
  field: string;
  id: string;
}

/** Where referenced records live, for the lookup and the message. */
export interface ReferenceTarget {
  /** Table in the owner's schema. */
  table: string;
  /** Their collection: its label names them in messages, and the caller finds the right ids in its list. */
  collection: string;
}

/**
 * The live ids among `ids` in a record table, share-locked in id order (writers lock alike, so
 * they never deadlock on them): none can be deleted before the transaction ends.
 */
export async function liveIds(m: EntityManager, table: string, ids: Iterable<string>): Promise<Set<string>> {
  const wanted = [...new Set(ids)].sort();
  if (wanted.length === 0) return new Set();
  const rows: { _id: string }[] = await m.query(
    `SELECT "_id" FROM "${table}" WHERE "_id" = ANY($1) AND "deleted" = false ORDER BY "_id" FOR SHARE`,
    [wanted],
  );
  return new Set(rows.map((r) => r._id));
}

/**
 * Checks that every reference names a live record of the target, and takes a share lock on
 * those records (sorted, so writers lock in one order) so none can be deleted before this
 * transaction ends. A missing one is a 400 naming each missing id and the field it came from.
 */
export async function requireLive(m: EntityManager, target: ReferenceTarget, refs: Reference[]): Promise<void> {
  if (refs.length === 0) return;
  const live = await liveIds(
    m,
    target.table,
    refs.map((r) => r.id),
  );
  const missing = refs.filter((r) => !live.has(r.id));
  if (missing.length === 0) return;
  const { label } = collectionInfo(target.collection);
  const details: ErrorDetail[] = missing.map((r) => ({
    field: r.field,
    message: `no live ${label} has _id '${r.id}'`,
  }));
  const names = [...new Set(missing.map((r) => `'${r.id}'`))].join(', ');
  throw new ValidationError(`No live ${label} with _id ${names}`, {
    title: `Unknown ${label}`,
    ...withLinks((link) => `Use the _id of a live ${label} from ${link({ collection: target.collection })}`),
    details,
  });
}

/** One kind of live record that still points at a record being deleted. */
export interface Usage {
  /** How many live records point at it. */
  count: number;
  /** Their collection: named in words, and listed to find them. */
  collection: string;
  /** The list filter that finds them (`{ group_ids: '…' }`); the whole list when absent. */
  query?: Record<string, string>;
  /** Words after the list, for users no filter finds: `and the relations whose lists name it`. */
  more?: string;
}

/** Refuses to delete a record that live records still point at: a 409 with how many of each kind. */
export function refuseInUse(label: string, name: string, usages: Usage[]): void {
  const used = usages.filter((u) => u.count > 0);
  if (used.length === 0) return;
  const words = used.map((u) => {
    const c = collectionInfo(u.collection);
    return `${u.count} live ${u.count === 1 ? c.label : c.labels}`;
  });
  const where = (link: (l: ApiLink) => string) =>
    used.map((u) => `${link({ collection: u.collection, query: u.query })}${u.more ? ` ${u.more}` : ''}`).join('; ');
  throw new ConflictError(`The ${label} '${name}' is still used by ${words.join(' and ')}`, {
    title: `${label[0].toUpperCase()}${label.slice(1)} in use`,
    ...withLinks((link) => `Remove it from them first (${where(link)}), then delete it`),
    details: used.map((u, i) => ({ field: '_id', message: `used by ${words[i]}` })),
  });
}
