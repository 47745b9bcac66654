import type { attributes as pb } from '@pim/contracts';
import {
  AttributeGroup,
  AttributeOption,
  type AttributeGroupInput,
  type AttributeGroupView,
  type AttributeInput,
  type AttributeOptionInput,
  type AttributeOptionView,
  type AttributeView,
  type TypeConfig,
} from '@pim/resources';
import type { RecordCodec } from '../../http/resource.routes';
import { declaredCodec, linksFromMessage, linksToMessage, mirror } from '../../http/declared.codec';

const linksOut = (links: { _id: string; required?: boolean }[] | undefined): pb.AttributeLink[] =>
  (links ?? []).map((l) => ({ id: l._id, required: l.required ?? false }));
const linksIn = (links: pb.AttributeLink[]) => links.map((l) => ({ _id: l.id, required: l.required }));

/** Attributes: links carry `_id` in REST and `id` in protos; type_config travels as a Struct. */
export const attributeCodec: RecordCodec<AttributeView, pb.Attribute, pb.AttributeInput, AttributeInput> = {
  fromMessage: (m) => ({
    ...mirror<AttributeView>({ ...m, groups: [], categories: [], type_config: {} } as never),
    groups: linksIn(m.groups),
    categories: linksIn(m.categories),
    type_config: (m.type_config ?? {}) as TypeConfig,
  }),
  toInput: (body) => ({
    groups: linksOut(body.groups),
    categories: linksOut(body.categories),
    key: body.key,
    name: body.name ?? {},
    description: body.description ?? {},
    type: body.type,
    type_config: body.type_config,
    unique: body.unique,
    required: body.required,
    sequence: body.sequence,
    association: body.association,
    enabled: body.enabled,
    protected_by_lgpd: body.protected_by_lgpd,
    tags: body.tags ?? [],
  }),
};

/** Attribute groups: users groups carry `_id` in REST and `id` in protos. */
export const attributeGroupCodec: RecordCodec<
  AttributeGroupView,
  pb.AttributeGroup,
  pb.AttributeGroupInput,
  AttributeGroupInput
> = declaredCodec(AttributeGroup, {
  toInput: { users_groups: linksToMessage },
  fromMessage: { users_groups: linksFromMessage },
});

/** Attribute options: message and view mirror each other. */
export const attributeOptionCodec: RecordCodec<
  AttributeOptionView,
  pb.AttributeOption,
  pb.AttributeOptionInput,
  AttributeOptionInput
> = declaredCodec(AttributeOption);
