import { buildApiDocument } from '../../apps/gateway/src/app';
import interfaceRequired from './fixtures/interface-required.json';

// The interface marks some fields of each resource required: every response that shows the
// resource must then list them in its schema's `required`, or generated clients type them optional.
// The interface's tables are parsed once into fixtures/interface-required.json (interface-fields.ts).

/** Each resource of the interface: its schema in the document and the tag of its operations. */
const RESOURCES: Record<string, { schema: string; tag: string }> = {
  Order: { schema: 'Order', tag: 'Orders' },
  Attribute: { schema: 'Attribute', tag: 'Attributes' },
  'Attribute group': { schema: 'AttributeGroup', tag: 'Attribute groups' },
  'Attribute option': { schema: 'AttributeOption', tag: 'Attribute options' },
  Product: { schema: 'Product', tag: 'Products' },
  Import: { schema: 'Import', tag: 'Imports' },
  Export: { schema: 'Export', tag: 'Exports' },
  'Product relation': { schema: 'ProductRelation', tag: 'Product relations' },
  Workflow: { schema: 'Workflow', tag: 'Workflows' },
  'Workflow approval': { schema: 'WorkflowApproval', tag: 'Workflow approvals' },
  'Users group': { schema: 'UsersGroup', tag: 'Users groups' },
  Publication: { schema: 'Publication', tag: 'Publications' },
  Webhook: { schema: 'Webhook', tag: 'Webhooks' },
};

/**
 * Fields the interface marks required that the platform leaves out in some state, each decided
 * and recorded in docs/decisions/ (by area). None today: a decided omission is listed here by
 * resource (`Import: ['field']`) with the decision's reason in the docs.
 */
const OMITTED: Record<string, string[]> = {};

type Schema = { $ref?: string; properties?: Record<string, Schema>; required?: string[]; items?: Schema };
type Doc = {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; responses: Record<string, Response> };
};
type Response = { $ref?: string; content?: Record<string, { schema?: Schema }> };
type Operation = { tags?: string[]; responses?: Record<string, Response> };

const doc = buildApiDocument() as unknown as Doc;
const name = (s: Schema | undefined) => s?.$ref?.replace('#/components/schemas/', '');
const resolve = (s: Schema | undefined) => (name(s) === undefined ? s : doc.components.schemas[name(s)!]);

/** The schemas (by name) of the records the 2xx answers of a tag's operations show: records, and the items of lists. */
function shownBy(tag: string): string[] {
  const names = new Set<string>();
  for (const item of Object.values(doc.paths)) {
    for (const op of Object.values(item)) {
      if (!op.tags?.includes(tag)) continue;
      for (const [status, r] of Object.entries(op.responses ?? {})) {
        if (!status.startsWith('2')) continue;
        const response = r.$ref ? doc.components.responses[r.$ref.replace('#/components/responses/', '')] : r;
        for (const media of Object.values(response.content ?? {})) {
          const items = resolve(media.schema)?.properties?.data?.items;
          const shown = name(items) ?? name(media.schema);
          if (shown !== undefined) names.add(shown);
        }
      }
    }
  }
  return [...names];
}

describe("response schemas and the interface's required fields", () => {
  const required = interfaceRequired as Record<string, string[]>;

  it('knows every resource the interface lists', () => {
    expect(Object.keys(required).sort()).toEqual(Object.keys(RESOURCES).sort());
  });

  it.each(Object.entries(RESOURCES))(
    '%s: every response showing it lists its required fields as required',
    (resource, { schema, tag }) => {
      const fields = required[resource];
      const omitted = OMITTED[resource] ?? [];
      // The resource's schema and its variants (a list item with expansions, a record with its secret)
      // are the schemas shown by its operations that have every field the interface requires.
      const schemas = shownBy(tag).filter((n) => fields.every((f) => doc.components.schemas[n].properties?.[f]));
      expect(schemas).toContain(schema);
      for (const n of schemas) {
        const listed = doc.components.schemas[n].required ?? [];
        expect({ schema: n, optional: fields.filter((f) => !listed.includes(f) && !omitted.includes(f)) }).toEqual({
          schema: n,
          optional: [],
        });
        // A decided omission that the document no longer makes is taken out of OMITTED.
        for (const f of omitted)
          expect({ schema: n, required: listed.includes(f), field: f }).toMatchObject({ required: false });
      }
    },
  );
});
