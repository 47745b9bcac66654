import type { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';

type Document = ReturnType<OpenApiGeneratorV31['generateDocument']>;
type Json = Record<string, unknown>;

/** JSON with the keys of every object in order, so two equal schemas compare equal as text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Json)[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** Replaces every object under `node` that equals a target (by its canonical text) with `{ $ref }`. */
function replaceEqual(node: unknown, targets: Map<string, string>): unknown {
  if (node === null || typeof node !== 'object') return node;
  if (!Array.isArray(node)) {
    const ref = targets.get(canonical(node));
    if (ref !== undefined) return { $ref: ref };
  }
  const object = node as Json;
  for (const key of Object.keys(object)) object[key] = replaceEqual(object[key], targets);
  return node;
}

/**
 * Makes the document smaller without changing what it says:
 * - `shared` schemas (a record id, a timestamp: the same object hundreds of times over) become
 *   components (with the description given, when the schema has none of its own), and every
 *   object equal to one of them a reference to it;
 * - a parameter's description is kept on the parameter only (zod-to-openapi repeats it in the
 *   parameter's schema), and `required: false`, the default, is left out;
 * - a response with a body that several operations answer alike (a replace and a patch: the
 *   record after the write) becomes one component, `<schema><status>`, that each refers to.
 */
export function compactDocument(doc: Document, shared: Record<string, { schema: Json; description: string }>): void {
  const components = (doc.components ??= {});
  const schemas = (components.schemas ??= {}) as Record<string, unknown>;
  const targets = new Map(
    Object.entries(shared).map(([name, { schema }]) => [canonical(schema), `#/components/schemas/${name}`]),
  );
  for (const [name, schema] of Object.entries(schemas)) schemas[name] = replaceEqual(schema, targets);
  replaceEqual(doc.paths, targets);
  for (const [name, { schema, description }] of Object.entries(shared))
    schemas[name] = { ...schema, description: schema.description ?? description };
  const parameters = [
    ...Object.values(components.parameters ?? {}),
    ...Object.values(doc.paths ?? {}).flatMap((item) =>
      Object.values(item as Record<string, { parameters?: unknown[] }>).flatMap((op) => op.parameters ?? []),
    ),
  ] as { description?: string; schema?: Json }[];
  for (const p of parameters as { required?: boolean }[]) if (p.required === false) delete p.required;
  for (const p of parameters) if (p.schema && p.schema.description === p.description) delete p.schema.description;
  shareResponses(doc);
}

type Operation = { responses?: Record<string, Json> };

/** Responses with a body that appear alike in several operations, as components. */
function shareResponses(doc: Document): void {
  const operations = Object.values(doc.paths ?? {}).flatMap((item) => Object.values(item as Record<string, Operation>));
  const uses = new Map<string, { response: Json; status: string; at: Operation[] }>();
  for (const op of operations) {
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      if (response.$ref !== undefined || response.content === undefined) continue;
      const text = canonical(response);
      const use = uses.get(text) ?? { response, status, at: [] };
      use.at.push(op);
      uses.set(text, use);
    }
  }
  const responses = ((doc.components ??= {}).responses ??= {}) as Record<string, unknown>;
  for (const { response, status, at } of uses.values()) {
    if (at.length < 2) continue;
    const media = Object.values(response.content as Record<string, { schema?: { $ref?: string } }>)[0];
    const schema = media?.schema?.$ref?.split('/').pop() ?? 'Body';
    let name = `${schema}${status}`;
    for (let n = 2; Object.hasOwn(responses, name); n++) name = `${schema}${status}v${n}`;
    responses[name] = response;
    for (const op of at) op.responses![status] = { $ref: `#/components/responses/${name}` };
  }
}
