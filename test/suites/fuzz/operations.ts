import type { Schema } from './schema';

/** A parameter of an operation, as the document declares it. */
export interface Parameter {
  in: 'path' | 'query' | 'header';
  name: string;
  required: boolean;
  schema: Schema;
}

/** One operation of the OpenAPI document: what the fuzzer calls and counts. */
export interface Operation {
  /** `GET /api/v1/brands/{id}`: how coverage and failures name it. */
  id: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** The path template, e.g. `/api/v1/brands/{id}`. */
  path: string;
  parameters: Parameter[];
  /** The request body: its media type and schema, when the operation takes one. */
  body?: { contentType: string; schema: Schema; required: boolean };
}

/** The part of an OpenAPI document the fuzzer reads. */
export interface ApiDocument {
  paths: Record<string, Record<string, unknown>>;
  components?: { schemas?: Record<string, Schema>; parameters?: Record<string, RawParameter> };
}

type RawParameter = Parameter & { in: string; style?: string; explode?: boolean };

interface RawOperation {
  parameters?: (RawParameter | { $ref: string })[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/**
 * The query parameters an exploded object parameter stands for (a list's `filter`): one per
 * property, and one per key its patterns name (`^(code|name)_(in|nin)$` → code_in, code_nin…).
 */
function exploded(doc: ApiDocument, p: RawParameter): RawParameter[] {
  const name = /^#\/components\/schemas\/(.+)$/.exec(p.schema.$ref ?? '')?.[1];
  const object = (name === undefined ? p.schema : doc.components?.schemas?.[name]) as
    { properties?: Record<string, Schema>; patternProperties?: Record<string, Schema> } | undefined;
  const keys = Object.entries(object?.properties ?? {});
  for (const [pattern, schema] of Object.entries(object?.patternProperties ?? {})) {
    const m = /^\^\((.+)\)_\((.+)\)\$$/.exec(pattern);
    if (!m) throw new Error(`${p.name}: pattern ${pattern} does not list its keys as ^(fields)_(operators)$`);
    for (const field of m[1].split('|').map((f) => f.replace(/\\(.)/g, '$1')))
      for (const op of m[2].split('|')) keys.push([`${field}_${op}`, schema]);
  }
  return keys.map(([key, schema]) => ({ in: 'query', name: key, required: false, schema }));
}

/** A parameter as written out: a shared one (`$ref`) from the components, an exploded object as its keys. */
function writtenOut(doc: ApiDocument, p: RawParameter | { $ref: string }): RawParameter[] {
  const param = '$ref' in p ? doc.components?.parameters?.[p.$ref.replace('#/components/parameters/', '')] : p;
  if (!param) throw new Error(`cannot resolve parameter ${(p as { $ref: string }).$ref}`);
  return param.in === 'query' && param.style === 'form' && param.explode === true ? exploded(doc, param) : [param];
}

/** Every operation of the document, in its order; fails on a parameter location it does not fuzz (cookie). */
export function operationsOf(doc: ApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const shared = (item.parameters as RawOperation['parameters']) ?? [];
    for (const method of METHODS) {
      const raw = item[method] as RawOperation | undefined;
      if (!raw) continue;
      const parameters = [...shared, ...(raw.parameters ?? [])]
        .flatMap((p) => writtenOut(doc, p))
        .map((p) => {
          if (p.in !== 'path' && p.in !== 'query' && p.in !== 'header')
            throw new Error(`${method.toUpperCase()} ${path}: parameter ${p.name} in ${p.in} is not fuzzed`);
          return { in: p.in, name: p.name, required: p.required ?? p.in === 'path', schema: p.schema };
        });
      const content = raw.requestBody?.content;
      const contentType = content ? Object.keys(content)[0] : undefined;
      ops.push({
        id: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase() as Operation['method'],
        path,
        parameters,
        body:
          content && contentType
            ? { contentType, schema: content[contentType].schema, required: raw.requestBody?.required ?? false }
            : undefined,
      });
    }
  }
  return ops;
}

/** How coverage names a parameter: `GET /api/v1/brands query:limit`. */
export const parameterKey = (op: Operation, p: Pick<Parameter, 'in' | 'name'>) => `${op.id} ${p.in}:${p.name}`;
