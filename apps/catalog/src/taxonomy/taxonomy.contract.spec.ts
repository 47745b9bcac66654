import { PROTO_FILES } from '@pim/contracts';
import { Brand, Catalog, Category, CategoryTree, Family } from '@pim/resources';
import { contractProblems } from '@pim/testing';
import { BrandEntity } from '../brand/brand.entity';
import { CatalogEntity } from '../catalog/catalog.entity';
import { CategoryEntity } from '../category/category.entity';
import { CategoryTreeEntity } from '../category-tree/category-tree.entity';
import { FamilyEntity } from '../family/family.entity';

// Each taxonomy resource is declared once (libs/resources); its table and its messages must agree
// with the declaration in names, types and optionality.
const resources = [
  ['Brand', Brand, BrandEntity],
  ['CategoryTree', CategoryTree, CategoryTreeEntity],
  ['Category', Category, CategoryEntity],
  ['Family', Family, FamilyEntity],
  ['Catalog', Catalog, CatalogEntity],
] as const;

describe('taxonomy contract: declaration, entity and proto messages', () => {
  it.each(resources)('%s agrees with its entity and pim.catalog.v1.%s / %sInput', (message, declaration, entity) => {
    expect(
      contractProblems({
        declaration,
        entity,
        protoFile: PROTO_FILES.taxonomy,
        message: `pim.catalog.v1.${message}`,
        inputMessage: `pim.catalog.v1.${message}Input`,
      }),
    ).toEqual([]);
  });
});
