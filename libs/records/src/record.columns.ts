import { Column, type ColumnOptions } from 'typeorm';
import type { Fields, RowOf } from '@pim/resources';

/** The parts of a declared field (`@pim/resources`) its column is derived from. */
interface ColumnSource {
  spec: { type: string; required: boolean; default?: unknown; column?: string; stored?: boolean; view?: unknown };
  optionalInView: boolean;
}

/** Whether a number field holds whole numbers only (its view schema is `z.number().int()`). */
const isInteger = (view: unknown) => (view as { format?: unknown } | undefined)?.format === 'safeint';

/** A Postgres literal default for a jsonb or array column. */
const literal = (sql: string) => () => `'${sql}'`;

/**
 * The column a declared field is stored in: text, char(24) ids, text[] lists, jsonb for
 * translations, objects and arrays, booleans, timestamptz dates, integer whole numbers and double
 * precision other numbers; nullable exactly when the field may be unset, with the declared
 * default as the column's.
 */
export function columnOptions(f: ColumnSource): ColumnOptions {
  const nullable = f.optionalInView;
  const d = f.spec.default;
  switch (f.spec.type) {
    case 'id':
      return { type: 'char', length: 24, nullable };
    case 'id[]':
    case 'string[]':
      return { type: 'text', array: true, ...(Array.isArray(d) ? { default: literal('{}') } : { nullable }) };
    case 'translate':
    case 'object':
    case 'array':
      return { type: 'jsonb', ...(d !== undefined ? { default: literal(JSON.stringify(d)) } : { nullable }) };
    case 'boolean':
      return { type: 'boolean', ...(typeof d === 'boolean' ? { default: d } : { nullable }) };
    case 'date':
      return { type: 'timestamptz', nullable };
    case 'number':
      return {
        type: isInteger(f.spec.view) ? 'integer' : 'double precision',
        ...(typeof d === 'number' ? { default: d } : { nullable }),
      };
    default:
      return { type: 'text', ...(typeof d === 'string' ? { default: d } : { nullable }) };
  }
}

/**
 * Declares on an entity class the column of every field of a resource declaration, so a field is
 * declared once: its column comes from its type, optionality and default (`columnOptions`);
 * `overrides` give another column where the table was made otherwise. Pair it with
 * `interface XEntity extends RowOf<typeof X> {}` for the fields' types.
 */
export function DeclaredColumns(
  declaration: { fields: Record<string, ColumnSource> },
  overrides: Record<string, ColumnOptions> = {},
): ClassDecorator {
  return (target) => {
    for (const [name, f] of Object.entries(declaration.fields)) {
      // A field kept in a column shared with others (the owner derives it) has none of its own.
      if (f.spec.stored === false) continue;
      Column(overrides[name] ?? columnOptions(f))(target.prototype, f.spec.column ?? name);
    }
  };
}

/** A class whose instances are rows (an entity or one of its bases); `any[]` is what TypeScript asks of a mixin's base. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type RowClass = abstract new (...args: any[]) => object;

/**
 * A base for an entity class whose declared columns come from its resource declaration:
 * `class BrandEntity extends declaredEntity(Brand, SearchableRecordEntity) {}` has every field of
 * `Brand` as a typed column, besides what the given base has; the entity adds only what the
 * declaration does not show (a secret, a derived path).
 */
export function declaredEntity<R extends { fields: Fields }, B extends RowClass>(
  declaration: R,
  base: B,
  overrides: Record<string, ColumnOptions> = {},
): abstract new () => InstanceType<B> & RowOf<R> {
  abstract class Declared extends base {}
  DeclaredColumns(declaration, overrides)(Declared);
  return Declared as unknown as abstract new () => InstanceType<B> & RowOf<R>;
}
