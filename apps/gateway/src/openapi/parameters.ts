import { z, type ZodType } from 'zod';

/** Where a parameter is sent. */
export type ParameterLocation = 'path' | 'query' | 'header';

/** One OpenAPI parameter object. */
export interface ParameterObject {
  name: string;
  in: ParameterLocation;
  description?: string;
  required: boolean;
  schema: Record<string, unknown>;
}

/**
 * A parameter object from a zod schema: required unless the schema accepts no value (a path
 * parameter always is), the description on the parameter and the value's constraints and example
 * in its schema.
 */
export function parameterObject(name: string, where: ParameterLocation, schema: ZodType): ParameterObject {
  const {
    $schema: _dialect,
    description,
    ...json
  } = z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return {
    name,
    in: where,
    ...(typeof description === 'string' ? { description } : {}),
    required: where === 'path' || !schema.safeParse(undefined).success,
    schema: json,
  };
}

/** A zod schema as an OpenAPI 3.1 schema object (JSON Schema 2020-12, without its dialect). */
export function jsonSchemaOf(schema: ZodType): Record<string, unknown> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return json;
}

/** A reference to a parameter component. */
export const parameterRef = (component: string): { $ref: string } => ({ $ref: `#/components/parameters/${component}` });
