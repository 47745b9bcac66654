import { z } from 'zod';
import type { FieldDecl, FieldType } from '@pim/query';

/** Everything one field of a resource declares, once. */
export interface FieldSpec {
  /** Its type in lists, filters and storage: `string`, `translate`, `id[]`... */
  type: FieldType;
  /** How a caller writes it; absent for a read-only field (the owner computes it). */
  input?: z.ZodType;
  /** How a merge patch writes it (default: `input`); `null` in a patch returns an optional field to its default. */
  patch?: z.ZodType;
  /** How the API shows it (default: `input`). */
  view: z.ZodType;
  /** A caller must give it, and it is always shown. */
  required: boolean;
  /** What an omitted optional field is stored and shown as (`[]`, `{}`, `true`). Without one it is absent until set. */
  default?: unknown;
  /** A read-only field that is always shown (the owner always computes it). */
  shown?: boolean;
  searchable?: boolean;
  filterable?: boolean;
  sortable?: boolean;
  expand?: FieldDecl['expand'];
  /** The column that holds it, when its name differs from the field's. */
  column?: string;
  /** `false`: lists neither filter, sort nor expand on it, and it is not among their fields (a filter of its own stands in). */
  listed?: boolean;
  /** `false`: it has no column of its own; the owner stores it in another (derived columns) and shows it from there. */
  stored?: boolean;
  /** Its values are stored in Unicode NFC (a code, a name that identifies): filters and lookups normalize theirs alike. */
  normalized?: boolean;
}

/**
 * One field of a resource, declared once: its type, how it is written, patched and shown, and
 * its list flags. Built with `field` and refined by chaining: `field.text(s).required().searchable()`.
 */
export class Field<S extends FieldSpec = FieldSpec> {
  constructor(readonly spec: S) {}

  /** A caller must give it (in an input; a patch may change but not remove it). */
  required(): Field<S & { required: true }> {
    return new Field({ ...this.spec, required: true as const });
  }

  /** What an omitted value is stored and shown as; `null` in a patch returns to it. */
  default<D>(value: D): Field<S & { default: D }> {
    return new Field({ ...this.spec, default: value });
  }

  /** Included in `_search` (case- and accent-insensitive). */
  searchable(): Field<S> {
    return new Field({ ...this.spec, searchable: true });
  }

  /** Whether lists may filter on it (default: by type). */
  filterable(on = true): Field<S> {
    return new Field({ ...this.spec, filterable: on });
  }

  /** Whether lists may sort on it (default: by type). */
  sortable(on = true): Field<S> {
    return new Field({ ...this.spec, sortable: on });
  }

  /** The related record a list embeds beside this id (`brand_id` → `brand` from `brands`). */
  expands(as: string, collection: string): Field<S> {
    return new Field({ ...this.spec, expand: { as, collection } });
  }

  /** The column that holds it, when its name differs. */
  column(name: string): Field<S> {
    return new Field({ ...this.spec, column: name });
  }

  /**
   * Whether lists know it at all (default true). `false` for a field lists reach another way: an
   * attribute's `groups` links are filtered and expanded through the `group_ids` filter.
   */
  listed(on = true): Field<S> {
    return new Field({ ...this.spec, listed: on });
  }

  /**
   * Whether it has a column of its own (default true). `false` for a field the owner keeps in a
   * column shared with others (a relation's one list, in `items`): it derives that column and
   * shows the field from it.
   */
  stored(on = true): Field<S> {
    return new Field({ ...this.spec, stored: on });
  }

  /**
   * Its values are stored in Unicode NFC (its input schema normalizes them): a filter value or a
   * handle looked up is normalized the same way, so text typed in another form (NFD) finds them.
   */
  normalized(): Field<S> {
    return new Field({ ...this.spec, normalized: true });
  }

  /** A read-only field the owner always computes, so it is always shown. */
  shown(): Field<S & { shown: true }> {
    return new Field({ ...this.spec, shown: true as const });
  }

  /** Whether a caller writes it. */
  get writable(): boolean {
    return this.spec.input !== undefined;
  }

  /** Whether the view may leave it out (optional, no default, not always computed). */
  get optionalInView(): boolean {
    const s = this.spec;
    return !s.required && s.default === undefined && !s.shown;
  }

  /** The field as the list query language sees it. */
  listDecl(): FieldDecl {
    const { type, required, searchable, filterable, sortable, expand, column, normalized } = this.spec;
    return { type, required, searchable, filterable, sortable, expand, column, ...(normalized ? { normalized } : {}) };
  }
}

/** Schemas of a writable field: the input's, a patch's (default: the input's) and the view's (default: the input's). */
interface Writable<I extends z.ZodType, P extends z.ZodType, V extends z.ZodType> {
  input: I;
  patch?: P;
  view?: V;
}

/** Builds fields; each builder takes the zod schemas of the value and returns a chainable `Field`. */
export const field = {
  /** A writable field of any type. */
  of<T extends FieldType, I extends z.ZodType, P extends z.ZodType = I, V extends z.ZodType = I>(
    type: T,
    s: Writable<I, P, V>,
  ) {
    return new Field({
      type,
      input: s.input,
      // P and V default to I when not given, so the fallbacks have the declared types.
      patch: (s.patch ?? s.input) as P,
      view: (s.view ?? s.input) as V,
      required: false as boolean,
    });
  },
  /** A boolean setting, described where it is written (patches and views show it bare). */
  flag(description: string) {
    return field.of('boolean', { input: z.boolean().meta({ description }), patch: z.boolean(), view: z.boolean() });
  },
  /** A read-only field the owner computes (absent from inputs and patches). */
  computed<T extends FieldType, V extends z.ZodType>(type: T, view: V) {
    return new Field({ type, view, required: false as boolean });
  },
};
