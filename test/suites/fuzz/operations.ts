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
  components?: { schemas?: Record<string, Schema> };
}

interface RawOperation {
  parameters?: (Parameter & { in: string })[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** Every operation of the document, in its order; fails on a parameter location it does not fuzz (cookie). */
export function operationsOf(doc: ApiDocument): Operation[] {
  const ops: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    const shared = (item.parameters as RawOperation['parameters']) ?? [];
    for (const method of METHODS) {
      const raw = item[method] as RawOperation | undefined;
      if (!raw) continue;
      const parameters = [...shared, ...(raw.parameters ?? [])].map((p) => {
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
