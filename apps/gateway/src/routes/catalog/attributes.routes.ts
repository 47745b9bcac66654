import { z, type ZodType } from 'zod';
import {
  CATEGORY_IDS_FILTER,
  GROUP_IDS_FILTER,
  attributeGroupListDecl,
  attributeGroupSchemas,
  attributeListDecl,
  attributeOptionListDecl,
  attributeOptionSchemas,
  attributeSchemas,
} from '@pim/resources';
import type { CatalogClients } from './catalog.clients';
import type { RecordRouteSpec } from '../../http/resource.routes';
import { attributeCodec, attributeGroupCodec, attributeOptionCodec } from './attributes.codecs';

/** Descriptions of the OpenAPI tags of the attribute routes. */
export const ATTRIBUTE_TAG_DESCRIPTIONS: Record<string, string> = {
  Attributes:
    'Typed fields of products: type and type_config, links to attribute groups and categories; key, type, unique and association never change',
  'Attribute options':
    'Values of select and multiselect attributes, unique per attribute; an option products use cannot be deleted',
  'Attribute groups': 'Groups of attributes and the users groups that may access them',
};

const ID = /^[0-9a-f]{24}$/;
const IDS = /^[0-9a-f]{24}(,[0-9a-f]{24})*$/;
const EXAMPLE = '6740a1b2c3d4e5f601234567';

/** The link filters in words (the generic filter wording would describe a field of the record). */
function linkParams(name: string, what: string): Record<string, ZodType> {
  return {
    [name]: z
      .string()
      .regex(ID)
      .max(24)
      .optional()
      .meta({ description: `Only attributes linked to the ${what} with this _id`, example: EXAMPLE }),
    [`${name}_in`]: z
      .string()
      .regex(IDS)
      .max(8000)
      .optional()
      .meta({
        description: `Only attributes linked to any of these ${what}s (comma-separated _ids)`,
        example: EXAMPLE,
      }),
    [`${name}_nin`]: z
      .string()
      .regex(IDS)
      .max(8000)
      .optional()
      .meta({ description: `Only attributes linked to none of these ${what}s`, example: EXAMPLE }),
    [`${name}_ne`]: z
      .string()
      .regex(ID)
      .max(24)
      .optional()
      .meta({ description: `Only attributes not linked to the ${what} with this _id`, example: EXAMPLE }),
  };
}

/** Declares one resource's routes (the caller's shared builder, with its limits, loaders and schemas). */
type Declare = <V extends { _id: string; version: number }, M, In, I>(spec: RecordRouteSpec<V, M, In, I>) => void;

/**
 * Declares /attributes, /attributes/{id}/options and /attribute-groups. `clients` is only touched
 * when a request arrives.
 */
export function attributeRoutes(declare: Declare, clients: CatalogClients): void {
  declare({
    collection: 'attributes',
    handle: 'key',
    searches: 'every language of name and description',
    schemas: attributeSchemas,
    listDecl: attributeListDecl,
    listParams: { ...linkParams(GROUP_IDS_FILTER, 'attribute group'), ...linkParams(CATEGORY_IDS_FILTER, 'category') },
    links: { groups: 'group', categories: 'category' },
    client: () => clients.attributes,
    codec: attributeCodec,
  });
  declare({
    collection: 'attribute_options',
    handle: 'value',
    searches: 'every language of label',
    schemas: attributeOptionSchemas,
    listDecl: attributeOptionListDecl,
    client: (params) => clients.attributeOptions(params.id),
    codec: attributeOptionCodec,
  });
  declare({
    collection: 'attribute_groups',
    handle: 'key',
    searches: 'every language of name',
    schemas: attributeGroupSchemas,
    listDecl: attributeGroupListDecl,
    client: () => clients.attributeGroups,
    codec: attributeGroupCodec,
  });
}
