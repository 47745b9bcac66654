import { sample } from 'openapi-sampler';
import type { OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';

type Document = ReturnType<OpenApiGeneratorV31['generateDocument']>;
type MediaType = { schema?: { $ref?: string } & Record<string, unknown>; example?: unknown; examples?: unknown };
type Content = Record<string, MediaType>;

/** The media types of every request and response body in the paths and the shared responses. */
function bodies(doc: Document): Content[] {
  const shared = Object.values((doc.components?.responses ?? {}) as Record<string, { content?: Content }>).flatMap(
    (r) => (r.content ? [r.content] : []),
  );
  return shared.concat(paths(doc));
}

/** The media types of every request and response body in the paths. */
function paths(doc: Document): Content[] {
  return Object.values(doc.paths ?? {}).flatMap((item) =>
    Object.values(item as Record<string, { requestBody?: { content?: Content }; responses?: Record<string, unknown> }>)
      .filter((op) => typeof op === 'object' && op !== null && 'responses' in op)
      .flatMap((op) => [
        ...(op.requestBody?.content ? [op.requestBody.content] : []),
        ...Object.values(op.responses ?? {}).flatMap((r) => {
          const content = (r as { content?: Content }).content;
          return content ? [content] : [];
        }),
      ]),
  );
}

const SAMPLING = { skipReadOnly: false, skipWriteOnly: false, quiet: true } as const;

/** The schema a reference names (`#/components/schemas/X`), or the schema itself. */
function resolved(schema: Record<string, unknown>, doc: Document): Record<string, unknown> {
  const name = /^#\/components\/schemas\/([^/]+)$/.exec(String(schema.$ref ?? ''))?.[1];
  return name === undefined ? schema : ((doc.components?.schemas?.[name] as Record<string, unknown>) ?? schema);
}

/**
 * An example of a schema of the document: the examples its fields declare, and for a field
 * without one a value of its type and format (openapi-sampler). Every property is shown, optional
 * ones too, so the example shows the whole shape; a page of a list shows one record with the
 * fields every record has (the record's own example shows the rest).
 */
export function exampleOf(schema: Record<string, unknown>, doc: Document): unknown {
  const value = sample(schema as never, SAMPLING, doc);
  const properties = resolved(schema, doc).properties as Record<string, { items?: object }> | undefined;
  const item = properties?.data?.items;
  if (item === undefined || properties?.total === undefined || typeof value !== 'object' || value === null)
    return value;
  return { ...value, data: [sample(item as never, { ...SAMPLING, skipNonRequired: true }, doc)] };
}

/**
 * Gives every request and response body an example it lacks. A body whose schema is a component
 * (`#/components/schemas/Order`) refers to one example of the same name under components/examples,
 * made once; another gets its own. A body of a file (`format: binary`) gets none from here: the
 * route states it with the media type.
 */
export function addExamples(doc: Document): void {
  const components = (doc.components ??= {});
  const examples = (components.examples ??= {}) as Record<string, { summary?: string; value: unknown }>;
  // Bodies of different schemas with the same example (a create and a patch) share it.
  const byValue = new Map<string, string>();
  const made = new Map<string, string>();
  for (const content of bodies(doc)) {
    for (const media of Object.values(content)) {
      if (media.example !== undefined || media.examples !== undefined || !media.schema) continue;
      const name = /^#\/components\/schemas\/([^/]+)$/.exec(media.schema.$ref ?? '')?.[1];
      if (name === undefined) {
        media.example = exampleOf(media.schema, doc);
        continue;
      }
      let component = made.get(name);
      if (component === undefined) {
        const value = exampleOf(media.schema, doc);
        const text = JSON.stringify(value);
        component = byValue.get(text) ?? name;
        if (component === name) {
          examples[name] = { summary: `An example ${name}`, value };
          byValue.set(text, name);
        }
        made.set(name, component);
      }
      media.examples = { [name]: { $ref: `#/components/examples/${component}` } };
    }
  }
}
