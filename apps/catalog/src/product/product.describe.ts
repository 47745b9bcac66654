import type { DataSource } from 'typeorm';
import type { ListQuery } from '@pim/query';
import type { RecordService } from '@pim/records';
import type { ProductInput, ProductView } from '@pim/resources';
import type { ProductEntity } from '../entities/product.entity';
import { currentSight } from '../access/product-sight';
import { localizableTextKeys } from '../repositories/attributes.repository';
import { productsContent, type ProductsContent } from '../repositories/products.repository';

/**
 * DescribeProducts: what the live products a query matches hold — the very products ScanProducts
 * streams for it (nested filters included) — aggregated by Postgres without loading them: how
 * many, the languages of name, description and localizable text attributes, the attribute keys.
 */
export class ProductsDescriber {
  constructor(
    private readonly ds: DataSource,
    private readonly products: RecordService<ProductEntity, ProductView, ProductInput>,
  ) {}

  async describe(query: Pick<ListQuery, 'filters' | 'search'>): Promise<ProductsContent> {
    const [matching, localizable, sight] = await Promise.all([
      this.products.matching(query),
      localizableTextKeys(this.ds.manager),
      currentSight(this.ds.manager),
    ]);
    // Attributes hidden from the caller count neither as columns nor for their languages: whether
    // the products hold one would tell what their views leave out.
    const hidden = sight?.hidden ?? [];
    const content = await productsContent(
      this.ds.manager,
      matching,
      localizable.filter((k) => !hidden.includes(k)),
    );
    return { ...content, attribute_keys: content.attribute_keys.filter((k) => !hidden.includes(k)) };
  }
}
