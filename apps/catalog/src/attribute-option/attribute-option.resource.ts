import type { EntityManager } from 'typeorm';
import { ConflictError, NotFoundError, ValidationError, withLinks } from '@pim/errors';
import { AttributeOption, OPTION_TYPES, type AttributeOptionInput, type AttributeOptionView } from '@pim/resources';
import { declaredRecord, type LockRequest, type RecordResource } from '@pim/records';
import type { AttributeEntity } from '../entities/attribute.entity';
import { liveAttribute } from '../repositories/attributes.repository';
import type { ProductUsage } from '../repositories/products.repository';
import { AttributeOptionEntity } from '../entities/attribute-option.entity';

/**
 * The live attribute options belong to: 404 when there is none, 400 when its type has no
 * options. With `lock`, the attribute row is share-locked first (before any option row), so it
 * cannot be deleted while an option is written: every option write locks in that order.
 */
export async function optionsAttribute(m: EntityManager, attributeId: string, lock = false): Promise<AttributeEntity> {
  const attribute = await liveAttribute(m, attributeId, lock);
  if (!attribute) {
    throw new NotFoundError(`No attribute with _id '${attributeId}'`, {
      title: 'Attribute not found',
      ...withLinks((link) => `List them with ${link({ collection: 'attributes' })} to find the right _id`),
    });
  }
  if (!OPTION_TYPES.includes(attribute.type)) {
    throw new ValidationError(
      `Attribute '${attribute.key}' is of type ${attribute.type}; only select and multiselect attributes have options`,
      {
        title: 'Attribute without options',
        solution: 'Add options to a select or multiselect attribute',
        details: [{ field: 'attribute_id', message: `is a ${attribute.type} attribute` }],
      },
    );
  }
  return attribute;
}

const lockAttribute = async (m: EntityManager, request: LockRequest) =>
  void (await optionsAttribute(m, request.scope.attribute_id, true));

/** Options of select and multiselect attributes, nested under their attribute. */
export function attributeOptionResource(
  usage: ProductUsage,
): RecordResource<AttributeOptionEntity, AttributeOptionView, AttributeOptionInput> {
  /** Products hold an option's value, not its id: deleting or renaming a value in use would leave them pointing at nothing. */
  const refuseInUse = async (
    m: EntityManager,
    option: AttributeOptionEntity,
    doing: 'delete' | 'change the value of',
  ) => {
    const attribute = await optionsAttribute(m, option.attribute_id);
    const count = await usage.productsWithOption(m, attribute, option.value);
    if (count === 0) return;
    const products = `${count} live ${count === 1 ? 'product' : 'products'}`;
    throw new ConflictError(
      `Cannot ${doing} option '${option.value}' of attribute '${attribute.key}': ${products} use it`,
      {
        title: 'Attribute option in use',
        ...withLinks(
          (link) =>
            `Change those products' ${attribute.key} first (${link({ collection: 'products', query: { [`attributes.${attribute.key}`]: encodeURIComponent(option.value) } })})`,
        ),
        details: [{ field: '_id', message: `used by ${products}` }],
      },
    );
  };
  return declaredRecord(AttributeOption, {
    entity: AttributeOptionEntity,
    handle: 'value',
    parent: { column: 'attribute_id' },
    hooks: {
      lock: lockAttribute,
      beforeWrite: async (m, next, prev) => {
        if (prev !== null && prev.value !== next.value) await refuseInUse(m, prev, 'change the value of');
      },
      beforeDelete: (m, option) => refuseInUse(m, option, 'delete'),
    },
  });
}
