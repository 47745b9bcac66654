import { z } from 'zod';
import { codeViewSchema } from './codes';
import { field } from './declare/field';
import { taxonomyCodeSchema } from './taxonomy';

// Fields of the resources whose names are plain strings rather than text per language (users
// groups, workflows, workflow approvals): declared once here, used by each.

/** A trimmed, non-empty string of at most `max` characters. */
export const requiredText = (max: number, description: string, example: string) =>
  z.string().trim().min(1).max(max).meta({ description, example });

/** A required name, searched. */
export const plainNameField = field
  .of('string', { input: requiredText(200, 'Name', 'Managers') })
  .required()
  .searchable();

/** An optional description. */
export const plainDescriptionField = field.of('string', {
  input: z.string().max(10_000).meta({ description: 'Description' }),
});

/** A required code (`codeSchema`), unique among the live records of the collection, searched. */
export const codeField = field
  .of('string', { input: taxonomyCodeSchema, view: codeViewSchema() })
  .required()
  .searchable()
  .normalized();

/** `enabled`, which a caller must give. */
export const requiredEnabledField = field.flag('Whether it is in use').required();

/** `default`: true when omitted; at most one live record of the collection is the default. */
export const defaultFlagField = (what: string) =>
  field
    .flag(
      `Whether this is the default ${what} (true when omitted); making one the default makes the previous default no longer one`,
    )
    .default(true);
