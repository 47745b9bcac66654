import type { EntityManager } from 'typeorm';
import { schemaOf } from '@pim/events';
import { insertCompletenessJob, type CompletenessScope } from '../repositories/completeness-jobs.repository';
import type { AttributeLink } from '../entities/attribute.entity';
import type { FamilyAttributeRef } from '../entities/family.entity';

export type { CompletenessScope };

/** What of an attribute decides for which products it is required (and how it is counted). */
export interface AttributeRequirement {
  _id: string;
  type: string;
  type_config: Record<string, unknown>;
  required: boolean;
  groups: AttributeLink[];
  categories: AttributeLink[];
}

/** What of a family decides which attributes its products need. */
export interface FamilyRequirement {
  _id: string;
  attribute_groups: string[];
  attributes: FamilyAttributeRef[];
}

/** The NOTIFY channel the completeness workers of one schema listen on. */
export const completenessChannel = (schema: string) => `pim_completeness_${schema}`;

const localizable = (a: AttributeRequirement) =>
  (a.type === 'text' || a.type === 'textarea') && a.type_config.localizable === true;
const sorted = (ids: Iterable<string>) => [...new Set(ids)].sort();

/**
 * The ids of the links (groups or categories) through which the attribute's required-ness for
 * a product changes: a product gets an attribute's requirement from each link it shares with it
 * (required when the attribute or the link says so), so only products sharing a link whose
 * answer differs between `prev` and `next` can change — all shared links when the way values
 * count (localizable) changes.
 */
function changedLinks(
  prev: AttributeRequirement | null,
  next: AttributeRequirement | null,
  of: 'groups' | 'categories',
  all: boolean,
): string[] {
  const requiredVia = (a: AttributeRequirement | null) =>
    new Map((a?.[of] ?? []).map((l) => [l._id, a!.required || l.required]));
  const before = requiredVia(prev);
  const after = requiredVia(next);
  const ids = new Set([...before.keys(), ...after.keys()]);
  return sorted(
    [...ids].filter((id) => {
      const b = before.get(id) ?? false;
      const n = after.get(id) ?? false;
      return all ? b || n : b !== n;
    }),
  );
}

/**
 * Which products an attribute's write (create: prev null; delete: next null) may change the
 * completeness of, or null when none: a new optional attribute, or a change of its name,
 * options or sequence, needs no recompute.
 */
export function attributeScope(
  prev: AttributeRequirement | null,
  next: AttributeRequirement | null,
): CompletenessScope | null {
  const recount = prev !== null && next !== null && localizable(prev) !== localizable(next);
  const scope: CompletenessScope = {
    group_ids: changedLinks(prev, next, 'groups', recount),
    category_ids: changedLinks(prev, next, 'categories', recount),
    family_ids: [],
    // A family naming the attribute requires it when its entry or the attribute says so.
    attribute_ids: recount || (prev?.required ?? false) !== (next?.required ?? false) ? [(next ?? prev)!._id] : [],
  };
  return isEmpty(scope) ? null : scope;
}

/** Which products a family's update may change the completeness of (its own), or null when its members did not change. */
export function familyScope(prev: FamilyRequirement, next: FamilyRequirement): CompletenessScope | null {
  const members = (f: FamilyRequirement) =>
    JSON.stringify([
      sorted(f.attribute_groups),
      [...f.attributes].map((a) => [a._id, a.required]).sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)),
    ]);
  if (members(prev) === members(next)) return null;
  return { group_ids: [], category_ids: [], family_ids: [next._id], attribute_ids: [] };
}

const isEmpty = (s: CompletenessScope) =>
  s.group_ids.length + s.category_ids.length + s.family_ids.length + s.attribute_ids.length === 0;

/**
 * Records a recompute inside the transaction of the change that needs it (so it exists if and
 * only if the change commits) and wakes the workers (NOTIFY is delivered at commit).
 */
export async function enqueueCompleteness(
  m: EntityManager,
  cause: string,
  scope: CompletenessScope | null,
): Promise<void> {
  if (scope === null || isEmpty(scope)) return;
  await insertCompletenessJob(m, cause, scope, completenessChannel(schemaOf(m.connection.options)));
}
