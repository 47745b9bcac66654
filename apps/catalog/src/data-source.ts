import type { AppDataSourceOptions } from '@pim/db';
import { OutboxEvent } from '@pim/events';
import { BrandEntity } from './brand/brand.entity';
import { CategoryTreeEntity } from './category-tree/category-tree.entity';
import { CategoryEntity } from './category/category.entity';
import { FamilyEntity } from './family/family.entity';
import { CatalogEntity } from './catalog/catalog.entity';
import { AttributeGroupEntity } from './attribute-group/attribute-group.entity';
import { AttributeEntity } from './attribute/attribute.entity';
import { AttributeOptionEntity } from './attribute-option/attribute-option.entity';
import { ProductEntity } from './product/product.entity';
import { ProductRelationEntity } from './relation/relation.entity';
import { CompletenessJobEntity } from './completeness/completeness-job.entity';
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
      OutboxEvent,
    ],
    migrations,
    applicationName: 'pim-catalog',
  };
}
