// Whether an answer is the error object the document declares for its status.
import { resolved, type OpenApiDocument, type Operation, type Schema } from './operations';

/** The kind of error object each status the census expects carries. */
export const KIND_OF: Record<number, string> = { 401: 'authentication', 403: 'authorization', 404: 'not_found' };

/** What keeps `value` from matching `schema` (the subset of JSON Schema the document's error object uses). */
export function schemaProblems(doc: OpenApiDocument, schema: Schema | undefined, value: unknown, at = ''): string[] {
  const s = resolved(doc, schema);
  if (!s) return [`${at || 'body'}: no schema`];
  const here = at || 'body';
  const types = s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type];
  const typeOf = (v: unknown) =>
    v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;
  if (types.length > 0 && !types.some((t) => t === typeOf(value) || (t === 'number' && typeof value === 'number')))
    return [`${here}: is ${typeOf(value)}, not ${types.join('|')}`];
  const problems: string[] = [];
  if (s.enum && !s.enum.includes(value)) problems.push(`${here}: ${JSON.stringify(value)} is not one of the enum`);
  if (typeof value === 'string') {
    if (s.maxLength !== undefined && value.length > s.maxLength) problems.push(`${here}: longer than ${s.maxLength}`);
    if (s.pattern && !new RegExp(s.pattern, 'u').test(value)) problems.push(`${here}: does not match ${s.pattern}`);
  }
  if (typeof value === 'number') {
    if (s.minimum !== undefined && value < s.minimum) problems.push(`${here}: below ${s.minimum}`);
    if (s.maximum !== undefined && value > s.maximum) problems.push(`${here}: above ${s.maximum}`);
  }
  if (Array.isArray(value) && s.items)
    value.forEach((item, i) => problems.push(...schemaProblems(doc, s.items, item, `${here}.${i}`)));
  if (typeOf(value) === 'object' && s.properties) {
    const record = value as Record<string, unknown>;
    for (const key of s.required ?? []) if (!(key in record)) problems.push(`${here}.${key}: missing`);
    for (const [key, v] of Object.entries(record)) {
      const property = s.properties[key];
      if (property) problems.push(...schemaProblems(doc, property, v, at ? `${at}.${key}` : key));
      else if (s.additionalProperties === false) problems.push(`${here}: has ${key}, which the schema does not allow`);
    }
  }
  return problems;
}

/** The schema the document declares for an operation's answer at `status` (undefined: that status is not documented). */
export function documentedSchema(doc: OpenApiDocument, o: Operation, status: number): Schema | undefined {
  let response = o.op.responses[String(status)] as
    { $ref?: string; content?: Record<string, { schema?: Schema }> } | undefined;
  if (response?.$ref)
    response = doc.components.responses?.[response.$ref.replace('#/components/responses/', '')] as typeof response;
  return response?.content?.['application/json']?.schema;
}

/**
 * What keeps an answer from being the error object of `status` for this operation: a status the
 * operation does not document, a body off the documented schema, a `code` other than the status,
 * or a `kind` other than the status's.
 */
export function errorObjectProblems(doc: OpenApiDocument, o: Operation, status: number, body: unknown): string[] {
  const schema = documentedSchema(doc, o, status);
  if (!schema) return [`status ${status} is not documented`];
  const problems = schemaProblems(doc, schema, body);
  const b = (body ?? {}) as { code?: unknown; kind?: unknown };
  if (b.code !== status) problems.push(`code is ${String(b.code)}, not ${status}`);
  if (KIND_OF[status] && b.kind !== KIND_OF[status]) problems.push(`kind is ${String(b.kind)}, not ${KIND_OF[status]}`);
  return problems;
}
