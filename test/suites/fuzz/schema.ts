/** A JSON Schema of the OpenAPI document (3.1: JSON Schema 2020-12), as far as the fuzz suite reads it. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  anyOf?: Schema[];
  allOf?: Schema[];
  example?: unknown;
  default?: unknown;
  description?: string;
}

/** Keywords `validate` checks or may ignore; any other keyword in a schema it validates is an error, not a silent pass. */
const KNOWN = new Set([
  ...[
    '$ref',
    'type',
    'properties',
    'required',
    'additionalProperties',
    'items',
    'minItems',
    'maxItems',
    'minLength',
    'maxLength',
    'pattern',
    'enum',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'anyOf',
    'allOf',
  ],
  ...['format', 'example', 'default', 'description', 'title'],
]);

/** Resolves `#/components/schemas/X` references against the document's components. */
export type Resolver = (schema: Schema) => Schema;

/** A resolver over a document's `components.schemas`. */
export function resolverOf(doc: { components?: { schemas?: Record<string, Schema> } }): Resolver {
  const schemas = doc.components?.schemas ?? {};
  return function resolve(schema: Schema): Schema {
    let s = schema;
    for (let hops = 0; s.$ref; hops++) {
      const name = /^#\/components\/schemas\/(.+)$/.exec(s.$ref)?.[1];
      const target = name === undefined ? undefined : schemas[name];
      if (!target || hops > 32) throw new Error(`cannot resolve ${s.$ref}`);
      s = target;
    }
    return s;
  };
}

const typeOf = (v: unknown): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'array'
      : typeof v === 'number'
        ? Number.isInteger(v)
          ? 'integer'
          : 'number'
        : typeof v;

const typeMatches = (want: string, got: string) => want === got || (want === 'number' && got === 'integer');

const compile = (pattern: string): RegExp => {
  try {
    return new RegExp(pattern, 'u');
  } catch {
    return new RegExp(pattern);
  }
};

/** Where and how a value breaks a schema (`details.0.field: longer than 200`); empty when it fits. */
export function validate(schema: Schema, value: unknown, resolve: Resolver, path = '(root)'): string[] {
  const s = resolve(schema);
  const unknown = Object.keys(s).filter((k) => !KNOWN.has(k));
  if (unknown.length > 0) throw new Error(`the validator does not know ${unknown.join(', ')} (at ${path})`);
  const problems: string[] = [];
  const at = (msg: string) => problems.push(`${path}: ${msg}`);
  const got = typeOf(value);
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type];
    if (!types.some((t) => typeMatches(t, got))) return [`${path}: is ${got}, not ${types.join(' or ')}`];
  }
  if (s.enum && !s.enum.some((e) => e === value)) at(`${JSON.stringify(value)} is not one of ${s.enum.join(', ')}`);
  if (typeof value === 'string') {
    const length = [...value].length;
    if (s.maxLength !== undefined && length > s.maxLength) at(`is ${length} characters, longer than ${s.maxLength}`);
    if (s.minLength !== undefined && length < s.minLength) at(`is ${length} characters, shorter than ${s.minLength}`);
    if (s.pattern !== undefined && !compile(s.pattern).test(value)) at(`does not match ${s.pattern}`);
  }
  if (typeof value === 'number') {
    if (s.minimum !== undefined && value < s.minimum) at(`${value} is below ${s.minimum}`);
    if (s.maximum !== undefined && value > s.maximum) at(`${value} is above ${s.maximum}`);
    if (s.exclusiveMinimum !== undefined && value <= s.exclusiveMinimum)
      at(`${value} is not above ${s.exclusiveMinimum}`);
  }
  if (Array.isArray(value)) {
    if (s.maxItems !== undefined && value.length > s.maxItems) at(`has ${value.length} items, more than ${s.maxItems}`);
    if (s.minItems !== undefined && value.length < s.minItems)
      at(`has ${value.length} items, fewer than ${s.minItems}`);
    if (s.items) value.forEach((v, i) => problems.push(...validate(s.items!, v, resolve, `${path}.${i}`)));
  }
  if (got === 'object') {
    const obj = value as Record<string, unknown>;
    for (const r of s.required ?? []) if (!(r in obj)) at(`lacks ${r}`);
    for (const [k, v] of Object.entries(obj)) {
      const prop = s.properties?.[k];
      if (prop) problems.push(...validate(prop, v, resolve, `${path}.${k}`));
      else if (s.additionalProperties === false) at(`has ${k}, which the schema does not allow`);
      else if (typeof s.additionalProperties === 'object')
        problems.push(...validate(s.additionalProperties, v, resolve, `${path}.${k}`));
    }
  }
  for (const sub of s.allOf ?? []) problems.push(...validate(sub, value, resolve, path));
  if (s.anyOf && !s.anyOf.some((sub) => validate(sub, value, resolve, path).length === 0)) at('matches none of anyOf');
  return problems;
}
