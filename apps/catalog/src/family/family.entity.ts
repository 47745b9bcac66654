import { Column } from 'typeorm';
import { TaxonomyEntity, TaxonomyTable } from '../taxonomy/taxonomy.entity';

/** One attribute of a family as stored (the REST shape). */
export interface FamilyAttributeRef {
  _id: string;
  required: boolean;
}

/** A family: the attribute groups and attributes its products carry. */
@TaxonomyTable('families')
export class FamilyEntity extends TaxonomyEntity {
  @Column({ type: 'text', array: true, default: () => "'{}'" })
  attribute_groups!: string[];

  @Column({ type: 'jsonb', default: () => "'[]'" })
  attributes!: FamilyAttributeRef[];
}
