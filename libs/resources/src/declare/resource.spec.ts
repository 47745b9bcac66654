import { z } from 'zod';
import { field } from './field';
import { defineResource } from './resource';

// A small declaration using what the catalog's resources need beyond the taxonomy's: a rule
// across fields, a field lists do not know, a field without a column of its own, and a date.
const Thing = defineResource({
  collection: 'product_relations',
  schemaId: 'DeclaredThing',
  description: 'Thing',
  refine: (input, ctx) => {
    if (input.kind === 'listed' && input.items === undefined)
      ctx.addIssue({ code: 'custom', path: ['items'], message: 'is required when kind is listed' });
  },
  fields: {
    kind: field.of('string', { input: z.enum(['listed', 'bare']) }).required(),
    items: field
      .of('array', { input: z.array(z.string()).min(1) })
      .listed(false)
      .stored(false),
    seen_at: field.of('date', { input: z.iso.datetime() }),
  },
});

describe('defineResource', () => {
  it('checks the input with its rule across fields, at the field the rule names', () => {
    expect(Thing.schemas.input.safeParse({ kind: 'listed' }).error?.issues).toMatchObject([
      { path: ['items'], message: 'is required when kind is listed' },
    ]);
    expect(Thing.schemas.input.safeParse({ kind: 'listed', items: ['a'] }).success).toBe(true);
    // A merge patch is checked once merged (against the input), not on its own.
    expect(Thing.schemas.patch.safeParse({ kind: 'listed' }).success).toBe(true);
  });

  it('leaves a field kept out of lists out of the list declaration, the common fields after the last listed one', () => {
    expect(Object.keys(Thing.listDecl.fields)).toEqual([
      '_id',
      'kind',
      'seen_at',
      'version',
      'created_at',
      'updated_at',
      'created_by_name',
    ]);
  });

  it('stores no column for a field without one, and leaves it to the owner in the view', () => {
    const columns = Thing.columns({ kind: 'listed', items: ['a'] });
    expect(columns).toEqual({ kind: 'listed', seen_at: null });
    expect(Thing.view({ kind: 'listed', items: ['a'], seen_at: null })).toEqual({ kind: 'listed' });
  });

  it('stores a date as a Date and shows it in the canonical ISO form', () => {
    const columns = Thing.columns({ kind: 'bare', seen_at: '2026-01-31T12:00:00Z' });
    expect(columns.seen_at).toEqual(new Date('2026-01-31T12:00:00.000Z'));
    expect(Thing.view(columns)).toEqual({ kind: 'bare', seen_at: '2026-01-31T12:00:00.000Z' });
  });
});
