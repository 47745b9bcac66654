import { z } from 'zod';
import { declareResource } from '@pim/query';
import { dateTimeSchema, objectIdSchema, userIdSchema, userIdViewSchema } from '@pim/resources';
import { grantableScopes, isGrantableScope } from './scopes';

/** Longest expiry accepted: an ISO 8601 UTC instant with up to 11 fractional digits. */
const MAX_EXPIRY_LENGTH = 32;

const SCOPE_PATTERN = '^(admin|[a-z_]+:(read|write))$';

/** Body of POST /api-keys. */
export const apiKeyInputSchema = z
  .strictObject({
    name: z.string().trim().min(1).max(100).meta({ description: 'What the key is for', example: 'ERP integration' }),
    scopes: z
      .array(
        z
          .string()
          .max(64)
          .refine(isGrantableScope, { message: 'must be admin or <collection>:read|write of a known collection' })
          .meta({ enum: grantableScopes() }),
      )
      .min(1)
      .max(100)
      .meta({
        description: 'Scopes granted: admin, or <collection>:read / <collection>:write (write includes read)',
        example: ['webhooks:read', 'products:write'],
      }),
    user_id: userIdSchema.optional().meta({
      description:
        "The user the key acts for, by the user id your identity system gives them (auth0|5f1c2b…, ana@example.com, a UUID: printable text of 1 to 200 characters, trimmed, stored in Unicode NFC, compared exactly). With user_name it fills created_by_name, deleted_by and last_interaction (a key acting for no user is named in created_by_name and deleted_by by its own name followed by ' (API key)'); it is matched against users groups' members, workflow steps' users and approval steps' approvers, and a key bound to a user without the admin scope sees only the products the user's users groups may see",
    }),
    user_name: z.string().trim().min(1).max(200).optional().meta({ example: 'Ana Souza' }),
    expires_at: dateTimeSchema
      .max(MAX_EXPIRY_LENGTH)
      .optional()
      .meta({ description: 'After this instant the key stops working', maxLength: MAX_EXPIRY_LENGTH }),
  })
  .meta({ id: 'ApiKeyInput', description: 'An API key to create: its name, scopes, user and expiry' });

/** An API key as the API shows it (never its secret). */
export const apiKeySchema = z
  .strictObject({
    _id: objectIdSchema,
    name: z.string().max(100).meta({ example: 'ERP integration' }),
    prefix: z
      .string()
      .regex(/^[a-z0-9]{12}$/)
      .max(12)
      .meta({ description: 'The public part of the key: pim_<prefix>_…', example: 'k3x9q2m7a1b8' }),
    scopes: z
      .array(z.string().regex(new RegExp(SCOPE_PATTERN)).max(64))
      .max(100)
      .meta({ example: ['webhooks:read', 'products:write'] }),
    user_id: userIdViewSchema.optional(),
    user_name: z.string().max(200).optional().meta({ example: 'Ana Souza' }),
    expires_at: dateTimeSchema.optional(),
    last_used_at: dateTimeSchema.optional(),
    revoked: z.boolean(),
    revoked_at: dateTimeSchema.optional(),
    version: z.number().int().min(1).max(2_147_483_647).meta({ format: 'int32', example: 1 }),
    created_at: dateTimeSchema,
    updated_at: dateTimeSchema,
    created_by_name: z.string().max(200).optional().meta({ example: 'admin' }),
  })
  .meta({ id: 'ApiKey', description: 'An API key as the API shows it: never its secret' });

/** An API key with its full token, returned once (creation, rotation). */
export const apiKeyWithTokenSchema = apiKeySchema
  .extend({
    key: z
      .string()
      .regex(/^pim_[a-z0-9]{12}_[A-Za-z0-9_-]{43}$/)
      .max(60)
      .meta({
        description: 'The full key; shown only in this response',
        example: 'pim_k3x9q2m7a1b8_Jx1vR8mQ2pL5sT9wK3nB7cF4hD6gA0eY2uI8oP1zX5q',
      }),
  })
  .meta({
    id: 'ApiKeyWithToken',
    description: 'An API key with its token, shown only in the answer of its creation or rotation',
  });

/** Writable fields of an API key. */
export type ApiKeyInput = z.infer<typeof apiKeyInputSchema>;
/** An API key as the API shows it. */
export type ApiKeyView = z.infer<typeof apiKeySchema>;

/** Fields of the API key list. */
export const apiKeyListDecl = declareResource({
  collection: 'api_keys',
  fields: {
    _id: { type: 'id' },
    name: { type: 'string', searchable: true },
    prefix: { type: 'string' },
    scopes: { type: 'string[]' },
    user_id: { type: 'string', normalized: true },
    user_name: { type: 'string', searchable: true },
    expires_at: { type: 'date' },
    last_used_at: { type: 'date' },
    revoked: { type: 'boolean' },
    created_at: { type: 'date' },
    updated_at: { type: 'date' },
  },
});
