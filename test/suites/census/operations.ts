// The operations of the OpenAPI document, as the census walks them: pure, no platform needed.

/** The parts of an OpenAPI 3.1 document the census reads. */
export interface OpenApiDocument {
  /** Path → method → operation (other keys of a path item, such as `parameters`, are not read). */
  paths: Record<string, Record<string, unknown>>;
  components: {
    schemas: Record<string, Schema>;
    responses?: Record<string, unknown>;
    parameters?: Record<string, unknown>;
  };
}

/** One operation object of the document. */
export interface OpenApiOperation {
  operationId: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; style?: string; explode?: boolean; schema?: Schema }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses: Record<string, { content?: Record<string, { schema?: Schema }> } | { $ref: string }>;
}

/** A JSON schema as the document writes it (only what the census reads). */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  pattern?: string;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  additionalProperties?: boolean | Schema;
  patternProperties?: Record<string, Schema>;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
}

/** What the census needs of one operation. */
export interface Operation {
  operationId: string;
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** The path as the document writes it: `/api/v1/products/{id}`. */
  path: string;
  /** `<collection>:read|write`, `admin`, or `authenticated` (any valid key: an empty scope list). */
  scope: string;
  /** The statuses the document lists for it. */
  statuses: number[];
  /** Its path parameters, in order. */
  pathParams: string[];
  /** Its query parameters. */
  queryParams: string[];
  op: OpenApiOperation;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Parameter = NonNullable<OpenApiOperation['parameters']>[number];

/**
 * The query keys an exploded object parameter stands for (a list's `filter`): its properties, and
 * the keys its patterns name (`^(code|name)_(in|nin)$` → code_in, code_nin, name_in, name_nin).
 */
export function objectKeys(doc: OpenApiDocument, schema: Schema | undefined): { name: string; schema: Schema }[] {
  const object = resolved(doc, schema);
  const keys = Object.entries(object?.properties ?? {}).map(([name, s]) => ({ name, schema: s }));
  for (const [pattern, s] of Object.entries(object?.patternProperties ?? {})) {
    const m = /^\^\((.+)\)_\((.+)\)\$$/.exec(pattern);
    if (!m) throw new Error(`pattern ${pattern} does not list its keys as ^(fields)_(operators)$`);
    const fields = m[1].split('|').map((f) => f.replace(/\\(.)/g, '$1'));
    for (const field of fields) for (const op of m[2].split('|')) keys.push({ name: `${field}_${op}`, schema: s });
  }
  return keys;
}

/**
 * An operation with its shared parameters and responses (`$ref`) written out, and a list's
 * exploded `filter` object as the query parameters it stands for.
 */
function writtenOut(doc: OpenApiDocument, op: OpenApiOperation): OpenApiOperation {
  const named = <T>(ref: string, kind: 'parameters' | 'responses'): T =>
    doc.components[kind]?.[ref.replace(`#/components/${kind}/`, '')] as T;
  const parameters = (op.parameters ?? []).flatMap((p): Parameter[] => {
    const param = '$ref' in p ? named<Parameter>((p as { $ref: string }).$ref, 'parameters') : p;
    if (param.in !== 'query' || param.style !== 'form' || param.explode !== true) return [param];
    return objectKeys(doc, param.schema).map((k) => ({ name: k.name, in: 'query', required: false, schema: k.schema }));
  });
  const responses = Object.fromEntries(
    Object.entries(op.responses).map(([status, r]) => [
      status,
      '$ref' in r ? (named<OpenApiOperation['responses'][string]>(String(r.$ref), 'responses') ?? r) : r,
    ]),
  );
  return { ...op, parameters, responses };
}

/** Every operation of the document, in document order; an operation without a scope is an error naming it. */
export function operationsOf(doc: OpenApiDocument): Operation[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const raw = item[method] as OpenApiOperation | undefined;
      if (!raw) return [];
      const op = writtenOut(doc, raw);
      const scopes = op.security?.[0] ? Object.values(op.security[0])[0] : undefined;
      if (!scopes) throw new Error(`${op.operationId} (${method.toUpperCase()} ${path}) states no security scope`);
      const params = op.parameters ?? [];
      return [
        {
          operationId: op.operationId,
          method,
          path,
          scope: scopes[0] ?? 'authenticated',
          statuses: Object.keys(op.responses).map(Number),
          pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
          queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
          op,
        },
      ];
    }),
  );
}

/** The path with each `{param}` replaced by the value given for it (or `fill`), percent-encoded. */
export function pathWith(path: string, values: Record<string, string>, fill?: string): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = values[name] ?? fill;
    if (value === undefined) throw new Error(`no value for {${name}} in ${path}`);
    return encodeURIComponent(value);
  });
}

/** The media type of an operation's request body, as the document states it (undefined: it takes none). */
export function requestMediaType(o: Operation): string | undefined {
  return Object.keys(o.op.requestBody?.content ?? {})[0];
}

/** `METHOD /path (operationId)`: how the census names an operation in a failure. */
export const nameOf = (o: Pick<Operation, 'method' | 'path' | 'operationId'>): string =>
  `${o.method.toUpperCase()} ${o.path} (${o.operationId})`;

/** The schema a `$ref` names (`#/components/schemas/X`), or the schema itself. */
export function resolved(doc: OpenApiDocument, schema: Schema | undefined): Schema | undefined {
  let s = schema;
  for (let hops = 0; s?.$ref && hops < 10; hops++) {
    const name = s.$ref.replace('#/components/schemas/', '');
    s = doc.components.schemas[name];
  }
  return s;
}

/** The JSON schema of an operation's first 2xx answer, resolved. */
export function successSchema(doc: OpenApiDocument, o: Operation): Schema | undefined {
  const status = o.statuses.find((s) => s >= 200 && s < 300);
  if (status === undefined) return undefined;
  const response = o.op.responses[String(status)] as { content?: Record<string, { schema?: Schema }> };
  return resolved(doc, response.content?.['application/json']?.schema);
}

/**
 * The record an operation answers with: its success schema, or the items of a list envelope's
 * `data` (a list answers `{data: [record…], total…}`).
 */
export function recordSchema(doc: OpenApiDocument, o: Operation): Schema | undefined {
  const schema = successSchema(doc, o);
  const items = resolved(doc, schema?.properties?.data?.items);
  return items ?? schema;
}

/** Runs `task` over `items`, at most `width` at a time, answering in the items' order. */
export async function inPool<T, R>(items: readonly T[], width: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await task(items[i]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, worker));
  return out;
}
