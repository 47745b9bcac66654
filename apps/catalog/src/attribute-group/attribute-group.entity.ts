import { Column, Entity, Index } from 'typeorm';
import { SearchableRecordEntity } from '@pim/records';

/** One users group's access to an attribute group, as stored (the REST shape). */
export interface UsersGroupAccess {
  _id: string;
  not_allowed_users: string[];
}

/** An attribute group. Search indexes and the tags index are created by the migration. */
@Entity({ name: 'attribute_groups' })
@Index('UQ_attribute_groups_key_live', ['key'], { unique: true, where: 'deleted = false' })
@Index('IDX_attribute_groups_created_at', ['created_at', '_id'])
@Index('IDX_attribute_groups_category_live', ['category_id'], { where: 'deleted = false' })
@Index('IDX_attribute_groups_search', { synchronize: false })
@Index('IDX_attribute_groups_tags', { synchronize: false })
export class AttributeGroupEntity extends SearchableRecordEntity {
  @Column({ type: 'char', length: 24, nullable: true })
  category_id!: string | null;

  @Column({ type: 'text' })
  key!: string;

  /** Translate: language code → text. */
  @Column({ type: 'jsonb' })
  name!: Record<string, string>;

  @Column({ type: 'jsonb', default: () => "'{}'" })
  description!: Record<string, string>;

  @Column({ type: 'integer', default: 0 })
  sequence!: number;

  @Column({ type: 'boolean', default: true })
  enabled!: boolean;

  @Column({ type: 'jsonb', default: () => "'[]'" })
  users_groups!: UsersGroupAccess[];

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  tags!: string[];
}
