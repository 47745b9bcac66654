import {
  Attribute,
  type AttributeInput,
  type AttributeOptionInput,
  type AttributeOptionView,
  type AttributeView,
} from '@pim/resources';
import { declaredRecord, refuseInUse, type RecordResource } from '@pim/records';
import type { RecordService } from '@pim/records';
import type { AttributeOptionEntity } from '../entities/attribute-option.entity';
import { familiesWithAttribute } from '../repositories/families.repository';
import { AttributeEntity } from '../entities/attribute.entity';
import { refuseImmutableChanges, requireLinks } from './attribute.rules';
import type { ProductUsage } from '../repositories/products.repository';
import { attributeScope, enqueueCompleteness } from '../completeness/completeness.jobs';

const links = (given: { _id: string; required?: boolean }[] | undefined) =>
  (given ?? []).map((l) => ({ _id: l._id, required: l.required ?? false }));

/**
 * Attributes: named by `key`, searched by name and description. Links to groups
 * and categories must be live; key, type, unique and association never change; deleting one is
 * refused while families name it or products hold values of it, and deletes its options with it.
 */
export function attributeResource(
  options: RecordService<AttributeOptionEntity, AttributeOptionView, AttributeOptionInput>,
  usage: ProductUsage,
): RecordResource<AttributeEntity, AttributeView, AttributeInput> {
  return declaredRecord(Attribute, {
    entity: AttributeEntity,
    handle: 'key',
    // Links are stored with `required` filled in, and their ids again as arrays for the link filters.
    derived: (input) => {
      const groups = links(input.groups);
      const categories = links(input.categories);
      return { groups, categories, group_ids: groups.map((g) => g._id), category_ids: categories.map((c) => c._id) };
    },
    hooks: {
      async beforeWrite(m, next, prev) {
        if (prev !== null) refuseImmutableChanges(next, prev);
        await requireLinks(m, next);
        // Products whose required attributes this changes get their stored completeness recomputed in the background.
        await enqueueCompleteness(
          m,
          `attributes.${prev === null ? 'created' : 'updated'} ${next._id}`,
          attributeScope(prev, next),
        );
      },
      async beforeDelete(m, attribute) {
        const families = await familiesWithAttribute(m, attribute._id);
        const products = await usage.productsWithAttribute(m, attribute);
        refuseInUse('attribute', attribute.key, [
          { count: families, collection: 'families' },
          { count: products, collection: 'products', query: { [`attributes.${attribute.key}_exists`]: 'true' } },
        ]);
      },
      // Options hold no meaning without their attribute; the attribute's row lock keeps new ones out meanwhile.
      async afterDelete(m, attribute) {
        await options.within({ attribute_id: attribute._id }).removeAllWithin(m);
        await enqueueCompleteness(m, `attributes.deleted ${attribute._id}`, attributeScope(attribute, null));
      },
    },
  });
}
