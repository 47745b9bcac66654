import type { EntityManager } from 'typeorm';
import { AttributeGroupEntity } from '../entities/attribute-group.entity';

// Every query over `attribute_groups` besides the record engine's own.

/** How many live attribute groups belong to a category. */
export function groupsInCategory(m: EntityManager, categoryId: string): Promise<number> {
  return m.count(AttributeGroupEntity, { where: { category_id: categoryId, deleted: false } });
}
