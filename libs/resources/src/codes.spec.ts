import type { z } from 'zod';
import { AttributeGroup } from './attributes';
import { Channel } from './channel';
import { CODE_MAX, codeSchema, refusedCodeCharacter, USER_ID_MAX, userIdSchema } from './codes';
import { Order, orderMoveSchema } from './order';
import { Product } from './products';
import { Brand, Catalog, Category, CategoryTree, Family } from './taxonomy';
import { UsersGroup } from './users-group';
import { Workflow } from './workflow';
import { WorkflowApproval } from './workflow-approval';

/** Codes real catalogs hold, which the first rule (letters, digits, _, - or .) refused. */
const REAL_CODES = ['AB-12/3', 'CX 100', '#123', 'Açaí-500', '日本-1', '50%', 'A,B;C|D', 'x\\y', '👟-42', 'ab-1'];

const code = codeSchema({ description: 'Unique among live things', example: 'SKU-1' });
const messageOf = (schema: z.ZodType, value: unknown) => schema.safeParse(value).error?.issues.map((i) => i.message);

describe('codes', () => {
  it.each(REAL_CODES)('takes %j as it is', (text) => {
    expect(code.parse(text)).toBe(text);
  });

  it('trims the spaces around a code and stores it in NFC', () => {
    expect(code.parse('  CX 100 \u00a0')).toBe('CX 100');
    expect(code.parse('Ac\u0327ai\u0301-500')).toBe('Açaí-500');
    expect(code.parse('Ac\u0327ai\u0301-500')).toBe('Açaí-500'.normalize('NFC'));
  });

  it(`takes up to ${CODE_MAX} characters, counted as characters (not UTF-16 units)`, () => {
    expect(code.parse('日'.repeat(CODE_MAX))).toHaveLength(CODE_MAX);
    expect([...code.parse('👟'.repeat(CODE_MAX))]).toHaveLength(CODE_MAX);
    expect(messageOf(code, 'x'.repeat(CODE_MAX + 1))).toEqual([
      `must have at most ${CODE_MAX} characters (it has 101)`,
    ]);
  });

  it('refuses an empty code, naming the rule', () => {
    expect(messageOf(code, '')).toEqual(['must not be empty (a code is 1 to 100 printable characters)']);
    expect(messageOf(code, '   ')).toEqual(['must not be empty (a code is 1 to 100 printable characters)']);
  });

  it.each([
    ['AB\t12', 'a tab (U+0009) at position 3'],
    ['AB\n12', 'a line feed (a line break) (U+000A) at position 3'],
    ['AB\r\n12', 'a carriage return (a line break) (U+000D) at position 3'],
    ['AB\u2028CD', 'a line separator (a line break) (U+2028) at position 3'],
    ['AB\u200b12', 'a zero-width space (U+200B) at position 3'],
    ['AB\u00ad12', 'a soft hyphen (U+00AD) at position 3'],
    ['\u200fAB', 'a right-to-left mark (U+200F) at position 1'],
    ['日本\u0007', 'the character (U+0007) at position 3'],
    ['👟\u0000', 'a NUL character (U+0000) at position 2'],
  ])('refuses %j: it holds %s', (text, what) => {
    expect(refusedCodeCharacter(text)).toBe(what);
    expect(messageOf(code, text)).toEqual([
      `holds ${what}: a code is printable text, without control characters, invisible formatting characters or line breaks`,
    ]);
  });

  it('says the rule in the document: what it takes, its length, NFC, case and the escapes of lists', () => {
    const { description, maxLength, example } = code.meta() as {
      description: string;
      maxLength: number;
      example: string;
    };
    expect(description).toMatch(/^Unique among live things\. Any printable text/);
    expect(description).toContain('AB-12/3, CX 100, #123, Açaí-500, 日本-1');
    expect(description).toContain('Unicode NFC');
    expect(description).toContain('Upper and lower case differ');
    expect(description).toContain('\\,');
    expect(description).toContain('\\|');
    expect(description).not.toMatch(/issue|spec/i);
    expect(maxLength).toBe(CODE_MAX);
    expect(example).toBe('SKU-1');
  });

  // Every resource with a code (or an attribute group's key, a code by another name) takes the
  // codes above, and its list compares them in NFC.
  const CODED: [
    string,
    { schemas: { input: z.ZodObject }; listDecl: { fields: Record<string, { normalized?: boolean }> } },
    string,
  ][] = [
    ['brands', Brand, 'code'],
    ['category trees', CategoryTree, 'code'],
    ['categories', Category, 'code'],
    ['families', Family, 'code'],
    ['catalogs', Catalog, 'code'],
    ['products', Product, 'code'],
    ['channels', Channel, 'code'],
    ['orders', Order, 'code'],
    ['orders (workflow by code)', Order, 'workflow_code'],
    ['workflows', Workflow, 'code'],
    ['workflow approvals', WorkflowApproval, 'code'],
    ['attribute groups', AttributeGroup, 'key'],
  ];

  it.each(CODED)('%s take every real code and filter on it in NFC', (_, resource, name) => {
    const schema = resource.schemas.input.shape[name] as z.ZodType;
    for (const text of REAL_CODES) expect(schema.parse(text)).toBe(text);
    expect(schema.parse('Ac\u0327ai\u0301-500')).toBe('Açaí-500');
    expect(schema.safeParse('AB\n1').success).toBe(false);
    expect(resource.listDecl.fields[name].normalized).toBe(true);
  });

  it("takes every real code as a workflow's step and status codes, and an order's status move", () => {
    const steps = [
      {
        code: 'Pagamento/1',
        name: 'Payment',
        status: [
          { code: 'Aguardando #1', name: 'Waiting', moves_to: ['Pago, ok'] },
          { code: 'Pago, ok', name: 'Paid' },
        ],
      },
    ];
    const parsed = Workflow.schemas.input.parse({ code: '日本-1', name: 'Flow', enabled: true, steps });
    expect(parsed.steps).toMatchObject(steps);
    expect(orderMoveSchema.parse({ status_code: ' Pago, ok ' }).status_code).toBe('Pago, ok');
    expect(Order.listDecl.fields.status_code.normalized).toBe(true);
    expect(Order.listDecl.fields.step_code.normalized).toBe(true);
  });
});

/** User ids as identity systems give them. */
const USER_IDS = [
  'auth0|5f1c2b3a4d5e6f7a8b9c0d1e',
  'ana@example.com',
  'f47ac10b-58cc-4372-a567-0e02b3c479d3',
  '6740a1b2c3d4e5f601234567',
  'google-oauth2|1234567890',
  'josé@exemplo.com.br',
];

describe('user ids', () => {
  it.each(USER_IDS)('takes %j as it is', (id) => {
    expect(userIdSchema.parse(id)).toBe(id);
  });

  it('trims, stores NFC, and refuses empty, over-long or unprintable ids', () => {
    expect(userIdSchema.parse(' ana@example.com ')).toBe('ana@example.com');
    expect(userIdSchema.parse('jose\u0301@exemplo.com.br')).toBe('josé@exemplo.com.br');
    expect(userIdSchema.safeParse('').success).toBe(false);
    expect(userIdSchema.safeParse('x'.repeat(USER_ID_MAX)).success).toBe(true);
    expect(messageOf(userIdSchema, 'x'.repeat(USER_ID_MAX + 1))).toEqual([
      `must have at most ${USER_ID_MAX} characters (it has 201)`,
    ]);
    // A line break around it is trimmed; inside it, refused.
    expect(userIdSchema.parse('auth0|1\n')).toBe('auth0|1');
    expect(messageOf(userIdSchema, 'auth0|\n1')).toEqual([
      'holds a line feed (a line break) (U+000A) at position 7: a user id is printable text, without control characters, invisible formatting characters or line breaks',
    ]);
  });

  it("are what users groups' members, workflow steps' users and approval steps' approvers hold", () => {
    const users = USER_IDS.map((id) => ({ id, name: id }));
    expect(UsersGroup.schemas.input.parse({ source_id: 'sso', name: 'Buyers', users }).users).toMatchObject(users);
    expect(
      Workflow.schemas.input.parse({ code: 'w', name: 'W', enabled: true, steps: [{ code: 's', name: 'S', users }] })
        .steps,
    ).toMatchObject([{ users }]);
    const approval = WorkflowApproval.schemas.input.parse({
      code: 'a',
      name: 'A',
      enabled: true,
      steps: [{ name: 'Review', order: 1, approvers: USER_IDS }],
    });
    expect(approval.steps).toMatchObject([{ approvers: USER_IDS }]);
    expect(
      UsersGroup.schemas.input.safeParse({ source_id: 'sso', name: 'B', users: [{ id: 'a' }, { id: ' a ' }] }).error
        ?.issues[0].message,
    ).toBe('must list each user id once');
  });
});

describe("users groups' names", () => {
  it('are stored in NFC, so a name whose accents are encoded otherwise is the same name', () => {
    const nfd = 'Gesta\u0303o de compras';
    const parsed = UsersGroup.schemas.input.parse({ source_id: 'sso', name: ` ${nfd} `, users: [] });
    expect(parsed.name).toBe('Gestão de compras');
    expect(UsersGroup.listDecl.fields.name.normalized).toBe(true);
    expect(UsersGroup.schemas.input.safeParse({ source_id: 'sso', name: 'Admins\u200b', users: [] }).success).toBe(
      false,
    );
  });
});
