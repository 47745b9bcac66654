import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** An API key: the hash of its secret, never the secret; its scopes and the user it acts for. */
@Entity({ name: 'api_keys' })
@Index('UQ_api_keys_prefix', ['prefix'], { unique: true })
@Index('IDX_api_keys_created_at', ['created_at', '_id'])
export class ApiKeyEntity {
  @PrimaryColumn({ type: 'char', length: 24 })
  _id!: string;

  @Column({ type: 'text' })
  name!: string;

  @Column({ type: 'text' })
  prefix!: string;

  @Column({ type: 'text' })
  secret_hash!: string;

  @Column({ type: 'text', array: true, default: () => "'{}'" })
  scopes!: string[];

  @Column({ type: 'text', nullable: true })
  user_id!: string | null;

  @Column({ type: 'text', nullable: true })
  user_name!: string | null;

  @Column({ type: 'timestamptz', nullable: true })
  expires_at!: Date | null;

  @Column({ type: 'timestamptz', nullable: true })
  last_used_at!: Date | null;

  @Column({ type: 'boolean', default: false })
  revoked!: boolean;

  @Column({ type: 'timestamptz', nullable: true })
  revoked_at!: Date | null;

  @Column({ type: 'integer', default: 1 })
  version!: number;

  @Column({ type: 'timestamptz' })
  created_at!: Date;

  @Column({ type: 'timestamptz' })
  updated_at!: Date;

  @Column({ type: 'text', nullable: true })
  created_by_name!: string | null;
}
