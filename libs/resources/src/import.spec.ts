import { IMPORT_TARGET_PATTERN, importRowShape, isSkippedTarget, targetRowShape } from './import';
import { templateMappingSchema } from './import-template';

describe('import targets and row shapes', () => {
  it("accepts the columns of every report type's default export as targets", () => {
    const perAttributes = ['code', 'attribute_key', 'attribute_name', 'language', 'value', '_id', 'product_name'];
    const eligibility = [
      'code',
      'product_name',
      'relation',
      'eligible',
      'item_type',
      'item_id',
      'item_code',
      'item_name',
      'category_tree',
      'attribute_type',
    ];
    for (const target of [...perAttributes, ...eligibility]) expect(target).toMatch(IMPORT_TARGET_PATTERN);
    for (const target of ['item', 'values', 'attribute', 'relations', 'category_tree.main'])
      expect(target).not.toMatch(IMPORT_TARGET_PATTERN);
  });

  it('reads past the names and types those reports write beside codes and keys', () => {
    for (const target of ['product_name', 'attribute_name', 'attribute_type', 'item_name'])
      expect(isSkippedTarget(target)).toBe(true);
    for (const target of ['attribute_key', 'language', 'value', 'relation', 'item_code', 'eligible', 'item_type'])
      expect(isSkippedTarget(target)).toBe(false);
  });

  it('tells each target its shape; code, _id and product_name belong to every shape', () => {
    expect(targetRowShape('code')).toBeUndefined();
    expect(targetRowShape('_id')).toBeUndefined();
    expect(targetRowShape('product_name')).toBeUndefined();
    expect(targetRowShape('language')).toBe('attribute_rows');
    expect(targetRowShape('attribute_name')).toBe('attribute_rows');
    expect(targetRowShape('item_name')).toBe('eligibility_rows');
    expect(targetRowShape('category_tree')).toBe('eligibility_rows');
    expect(targetRowShape('name.en')).toBe('product_rows');
    expect(targetRowShape('attributes.color')).toBe('product_rows');
    expect(targetRowShape('updated_at')).toBe('product_rows');
  });

  it('decides the shape of a mapping by the targets that make it', () => {
    expect(importRowShape(['code', 'attribute_key', 'value'])).toBe('attribute_rows');
    expect(importRowShape(['code', 'relation', 'item_code'])).toBe('eligibility_rows');
    expect(importRowShape(['code', 'relation', 'item_id'])).toBe('eligibility_rows');
    // Without both columns that make a shape, rows are products (and the other columns a problem).
    expect(importRowShape(['code', 'attribute_key', 'language'])).toBe('product_rows');
    expect(importRowShape(['code', 'relation'])).toBe('product_rows');
    expect(importRowShape(['code', 'name.en'])).toBe('product_rows');
    // Both: attribute rows come first, and the eligibility columns are refused by the import's checks.
    expect(importRowShape(['code', 'attribute_key', 'value', 'relation', 'item_code'])).toBe('attribute_rows');
  });

  it('takes a template mapping each header of any export to its own name (one template may serve several kinds of file)', () => {
    const mapping = Object.fromEntries(
      ['code', 'attribute_key', 'value', 'relation', 'item_code', 'item_id', 'name.en'].map((t) => [t, t]),
    );
    expect(templateMappingSchema.safeParse(mapping).success).toBe(true);
  });
});
