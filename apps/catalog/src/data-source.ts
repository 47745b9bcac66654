import type { AppDataSourceOptions } from '@pim/db';
import { DeadLetter, OutboxEvent } from '@pim/events';
import { BrandEntity } from './entities/brand.entity';
import { CategoryTreeEntity } from './entities/category-tree.entity';
import { CategoryEntity } from './entities/category.entity';
import { FamilyEntity } from './entities/family.entity';
import { CatalogEntity } from './entities/catalog.entity';
import { AttributeGroupEntity } from './entities/attribute-group.entity';
import { AttributeEntity } from './entities/attribute.entity';
import { AttributeOptionEntity } from './entities/attribute-option.entity';
import { ProductEntity } from './entities/product.entity';
import { ProductRelationEntity } from './entities/relation.entity';
import { CompletenessJobEntity } from './entities/completeness-job.entity';
import { AppliedChangeEntity } from './entities/applied-change.entity';
import { AppliedBatchEntity } from './entities/applied-batch.entity';
import { migrations } from './migrations';

/** This app's schema. */
export const SCHEMA = 'catalog';

/** Persistence of the catalog app: its schema, entities and migrations. */
export function dataSourceOptions(url: string): AppDataSourceOptions {
  return {
    url,
    schema: SCHEMA,
    entities: [
      BrandEntity,
      CategoryTreeEntity,
      CategoryEntity,
      FamilyEntity,
      CatalogEntity,
      AttributeGroupEntity,
      AttributeEntity,
      AttributeOptionEntity,
      ProductEntity,
      ProductRelationEntity,
      CompletenessJobEntity,
      AppliedChangeEntity,
      AppliedBatchEntity,
      OutboxEvent,
      DeadLetter,
    ],
    migrations,
    applicationName: 'pim-catalog',
  };
}
