import type { EntityManager } from 'typeorm';
import { ConflictError, ValidationError, type ErrorDetail } from '@pim/errors';

/** One id a record names, and the field of the body it came from (`groups.1._id`). */
export interface Reference {
  field: string;
  id: string;
}

/** Where referenced records live, for the lookup and the message. */
export interface ReferenceTarget {
  /** Table in the catalog schema. */
  table: string;
  /** The record in words: `attribute group`. */
  label: string;
  /** Where a caller finds the right ids: `/api/v1/attribute-groups`. */
  path: string;
}

/**
 * Checks that every reference names a live record of the target, and takes a share lock on
 * those records (sorted, so writers lock in one order) so none can be deleted before this
 * transaction ends. A missing one is a 400 naming each missing id and the field it came from.
 */
export async function requireLive(m: EntityManager, target: ReferenceTarget, refs: Reference[]): Promise<void> {
  if (refs.length === 0) return;
  const ids = [...new Set(refs.map((r) => r.id))].sort();
  const rows: { _id: string }[] = await m.query(
    `SELECT "_id" FROM "${target.table}" WHERE "_id" = ANY($1) AND "deleted" = false ORDER BY "_id" FOR SHARE`,
    [ids],
  );
  const live = new Set(rows.map((r) => r._id));
  const missing = refs.filter((r) => !live.has(r.id));
  if (missing.length === 0) return;
  const details: ErrorDetail[] = missing.map((r) => ({
    field: r.field,
    message: `no live ${target.label} has _id '${r.id}'`,
  }));
  const names = [...new Set(missing.map((r) => `'${r.id}'`))].join(', ');
  throw new ValidationError(`No live ${target.label} with _id ${names}`, {
    title: `Unknown ${target.label}`,
    solution: `Use the _id of a live ${target.label} from GET ${target.path}`,
    details,
  });
}

/** One kind of live record that still points at a record being deleted. */
export interface Usage {
  /** How many live records point at it. */
  count: number;
  /** Them in words, singular and plural: `attribute`/`attributes`. */
  one: string;
  many: string;
  /** Where to find them: `GET /api/v1/attributes?group_ids=…`. */
  where: string;
}

/** Refuses to delete a record that live records still point at: a 409 with how many of each kind. */
export function refuseInUse(label: string, name: string, usages: Usage[]): void {
  const used = usages.filter((u) => u.count > 0);
  if (used.length === 0) return;
  const words = used.map((u) => `${u.count} live ${u.count === 1 ? u.one : u.many}`);
  throw new ConflictError(`The ${label} '${name}' is still used by ${words.join(' and ')}`, {
    title: `${label[0].toUpperCase()}${label.slice(1)} in use`,
    solution: `Remove it from them first (${used.map((u) => u.where).join('; ')}), then delete it`,
    details: used.map((u, i) => ({ field: '_id', message: `used by ${words[i]}` })),
  });
}
