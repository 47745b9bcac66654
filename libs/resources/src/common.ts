import { z } from 'zod';

/** 24 lowercase hex characters (docs/platform/rules.md: records). */
export const objectIdSchema = z
  .string()
  .regex(/^[0-9a-f]{24}$/, 'must be 24 lowercase hexadecimal characters')
  .meta({
    description: 'Record id: 24 lowercase hex characters (ObjectId layout)',
    example: '6740a1b2c3d4e5f601234567',
    maxLength: 24,
  });

/** ISO 8601 UTC timestamp with milliseconds (as every record shows its times: always 24 characters). */
export const dateTimeSchema = z.iso.datetime().meta({ example: '2026-11-22T16:15:43.123Z', maxLength: 24 });

/** A {key, value} string pair. */
export const keyValueSchema = z
  .strictObject({
    key: z.string().min(1).max(256).meta({ example: 'X-Api-Key' }),
    value: z.string().max(8192).meta({ example: 'k3y' }),
  })
  .meta({ id: 'KeyValue', description: 'A key and a value, both strings' });
