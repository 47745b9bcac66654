import type { attributes as pb } from '@pim/contracts';
import {
  Attribute,
  AttributeGroup,
  AttributeOption,
  type AttributeGroupInput,
  type AttributeGroupView,
  type AttributeInput,
  type AttributeOptionInput,
  type AttributeOptionView,
  type AttributeView,
} from '@pim/resources';
import type { RecordCodec } from '../../http/resource.routes';
import { declaredCodec, linksFromMessage, linksToMessage } from '../../http/declared.codec';

/** A link as its message carries it: `id` for `_id`, and `required` false unless given. */
const linksOut = (links: unknown): pb.AttributeLink[] =>
  (links as { _id: string; required?: boolean }[]).map((l) => ({ id: l._id, required: l.required ?? false }));

/** Attributes: links carry `_id` in REST and `id` in protos; type_config travels as a Struct. */
export const attributeCodec: RecordCodec<AttributeView, pb.Attribute, pb.AttributeInput, AttributeInput> =
  declaredCodec(Attribute, {
    toInput: { groups: linksOut, categories: linksOut },
    fromMessage: { groups: linksFromMessage, categories: linksFromMessage },
  });

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
