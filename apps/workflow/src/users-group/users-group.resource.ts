import { declaredRecord } from '@pim/records';
import { UsersGroup, type UsersGroupInput } from '@pim/resources';
import { UsersGroupEntity } from '../entities/users-group.entity';

/** Each user's roles stored as a list, empty when not given. */
const members = (users: UsersGroupInput['users']) => users.map((u) => ({ ...u, roles: u.roles ?? [] }));

/** Users groups on the record engine: named by their name, unique among live groups. */
export const usersGroupRecord = declaredRecord(UsersGroup, {
  entity: UsersGroupEntity,
  handle: 'name',
  handleTaken: (name) => `Another live users group is already named '${String(name)}'`,
  derived: (input) => ({ users: members(input.users) }),
});
