import { z } from 'zod';
import { identifyingNameSchema, userIdSchema, userIdViewSchema } from './codes';
import { field } from './declare/field';
import { defineResource } from './declare/resource';
import { plainDescriptionField, requiredText } from './plain-fields';

/** A user in a users group: its id (the `user_id` API keys are bound to), name and roles; each key is optional. */
export const groupUserSchema = z
  .strictObject({
    id: userIdSchema.optional(),
    name: z.string().max(200).optional(),
    roles: z.array(z.string().min(1).max(100)).max(100).optional(),
  })
  .meta({ id: 'UsersGroupUser', description: 'A member of the group: user id, name and roles' });

/** A user as the group shows it: roles always present (empty when none were given). */
export const groupUserViewSchema = groupUserSchema
  .extend({ id: userIdViewSchema.optional(), roles: z.array(z.string().max(100)).max(100) })
  .meta({ id: 'UsersGroupMember', description: 'A member of the group: user id, name and roles' });

const usersSchema = z
  .array(groupUserSchema)
  .max(10_000)
  .refine((users) => {
    const ids = users.flatMap((u) => (u.id === undefined ? [] : [u.id]));
    return new Set(ids).size === ids.length;
  }, 'must list each user id once');

/**
 * Users groups: a permission and the users who hold it. A user (by id) belongs to any number of
 * groups; catalogs and attribute groups name groups by id, workflow steps carry them. Named by
 * `name`, unique among live groups and stored in NFC, so a name whose accents are encoded another
 * way (NFD) is the same name.
 */
export const UsersGroup = defineResource({
  collection: 'users_groups',
  description: 'Users group: a permission and the users who hold it',
  fields: {
    source_id: field
      .of('string', { input: requiredText(200, 'Where the permission comes from (a directory, a system)', 'sso') })
      .required(),
    name: field
      .of('string', { input: identifyingNameSchema(200, 'Unique among live users groups', 'Managers') })
      .required()
      .searchable()
      .normalized(),
    description: plainDescriptionField.searchable(),
    has_full_product_access: field
      .flag('Whether its users see every product, whatever the catalogs say (default false)')
      .default(false),
    users: field.of('array', { input: usersSchema, view: z.array(groupUserViewSchema).max(10_000) }).required(),
  },
});

/** Members as proto messages carry them: `roles` always a list (proto has no absent list). */
export function groupUsersToWire(users: unknown): unknown {
  return ((users ?? []) as { roles?: string[] }[]).map((u) => ({ ...u, roles: u.roles ?? [] }));
}

/** A users group as the API shows it. */
export type UsersGroupView = z.infer<typeof UsersGroup.schemas.view>;
/** Writable fields of a users group. */
export type UsersGroupInput = z.infer<typeof UsersGroup.schemas.input>;
