import { PROTO_FILES } from '@pim/contracts';
import { Brand, Catalog, Category, CategoryTree, Family } from '@pim/resources';
import { contractProblems, recordRpcs, rpcsOf } from '@pim/testing';
import { BrandEntity } from './entities/brand.entity';
import { CatalogEntity } from './entities/catalog.entity';
import { CategoryEntity } from './entities/category.entity';
import { CategoryTreeEntity } from './entities/category-tree.entity';
import { FamilyEntity } from './entities/family.entity';

// Each taxonomy resource is declared once (libs/resources); its table and its messages must agree
// with the declaration in names, types and optionality.
const resources = [
  ['Brand', Brand, BrandEntity],
  ['CategoryTree', CategoryTree, CategoryTreeEntity],
  ['Category', Category, CategoryEntity],
  ['Family', Family, FamilyEntity],
  ['Catalog', Catalog, CatalogEntity],
] as const;

const services = [
  ['Brand', 'Brands'],
  ['CategoryTree', 'CategoryTrees'],
  ['Category', 'Categories'],
  ['Family', 'Families'],
  ['Catalog', 'Catalogs'],
] as const;

describe('taxonomy contract: declaration, entity and proto messages', () => {
  it.each(resources)('%s agrees with its entity and its view and input messages', (message, declaration, entity) => {
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

  it.each(services)('%s answers the same seven RPCs as every catalog resource', (one, many) => {
    expect(rpcsOf(PROTO_FILES.taxonomy, `pim.catalog.v1.${many}Service`)).toEqual(recordRpcs(one, many));
  });
});
