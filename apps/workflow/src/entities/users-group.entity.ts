import { Entity, Index } from 'typeorm';
import { SearchableRecordEntity, declaredEntity } from '@pim/records';
import { UsersGroup } from '@pim/resources';

/** A users group: the declared fields (`UsersGroup` in @pim/resources) and the common record columns; its name is unique among live groups. */
@Entity({ name: 'users_groups' })
@Index('UQ_users_groups_name_live', ['name'], { unique: true, where: 'deleted = false' })
@Index('IDX_users_groups_created_at', ['created_at', '_id'])
// GIN over the members (jsonb_path_ops), made by its migration: which groups list a user.
@Index('IDX_users_groups_members', { synchronize: false })
export class UsersGroupEntity extends declaredEntity(UsersGroup, SearchableRecordEntity) {}
