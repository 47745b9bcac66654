import type { Field, Fields, Resource } from '@pim/resources';
import type { RecordCodec } from './resource.routes';

/** A message whose fields are the view's, with `id` for `_id`. */
export function mirror<V extends { _id: string }>(m: Omit<V, '_id'> & { id: string }): V {
  const { id, ...rest } = m;
  return { _id: id, ...rest } as unknown as V;
}

/** `{_id, …}` links of a REST list as a message's `{id, …}` (buf lint forbids a leading underscore). */
export const linksToMessage = (links: unknown): unknown =>
  (links as { _id: string }[]).map(({ _id, ...rest }) => ({ id: _id, ...rest }));

/** A message's `{id, …}` links as REST's `{_id, …}`. */
export const linksFromMessage = (links: unknown): unknown =>
  (links as { id: string }[]).map(({ id, ...rest }) => ({ _id: id, ...rest }));

/** Per-field conversions where a message differs from the REST shape (links carry `id` for `_id`). */
export interface CodecOverrides {
  toInput?: Record<string, (value: unknown) => unknown>;
  fromMessage?: Record<string, (value: unknown) => unknown>;
}

/** Field types that travel as repeated fields or maps, which proto cannot send absent. */
const WITHOUT_PRESENCE = ['array', 'string[]', 'id[]', 'translate'];

/** A fresh copy of a field's declared default (arrays and objects are never shared). */
const defaultOf = (f: Field): unknown =>
  typeof f.spec.default === 'object' && f.spec.default !== null ? structuredClone(f.spec.default) : f.spec.default;

/**
 * What an omitted field is sent as: a list or map as its declared default, else empty (proto has
 * no absent list or map); any other field stays absent for the owner to default.
 */
function omitted(f: Field): unknown {
  if (!WITHOUT_PRESENCE.includes(f.spec.type)) {
    const d = defaultOf(f);
    return typeof d === 'object' && d !== null ? d : undefined;
  }
  return defaultOf(f) ?? (f.spec.type === 'translate' ? {} : []);
}

/**
 * The codec of a declared resource whose messages mirror its REST shapes: a body becomes the input
 * message field by field (an omitted list or map is sent as its declared default, else empty,
 * since those have no presence in proto; other omitted fields stay absent for the owner to
 * default), and a message becomes the view with `_id` for `id`: a field the message leaves unset
 * is shown as its default when it has one (a Struct), left out otherwise, and a list the view may
 * leave out is left out when empty (an empty repeated field is how proto sends an absent one).
 * Adding a field to the declaration needs no change here.
 */
export function declaredCodec<V extends { _id: string }, M extends { id: string }, In, I>(
  declaration: Pick<Resource<Fields>, 'fields'>,
  overrides: CodecOverrides = {},
): RecordCodec<V, M, In, I> {
  const fields = Object.entries(declaration.fields);
  const writable = fields.filter(([, f]) => f.writable);
  return {
    fromMessage: (m) => {
      const view = mirror<V>(m as unknown as Omit<V, '_id'> & { id: string }) as Record<string, unknown>;
      for (const [name, f] of fields) {
        const value = view[name];
        if (value === undefined && !f.optionalInView) view[name] = defaultOf(f);
        if (f.optionalInView && (value === undefined || (Array.isArray(value) && value.length === 0)))
          delete view[name];
      }
      for (const [name, convert] of Object.entries(overrides.fromMessage ?? {})) {
        if (view[name] !== undefined) view[name] = convert(view[name]);
      }
      for (const key of Object.keys(view)) if (view[key] === undefined) delete view[key];
      return view as V;
    },
    toInput: (body) => {
      const given = body as Record<string, unknown>;
      const input: Record<string, unknown> = {};
      for (const [name, f] of writable) {
        const value = given[name] ?? omitted(f);
        input[name] = overrides.toInput?.[name] && value !== undefined ? overrides.toInput[name](value) : value;
      }
      return input as In;
    },
  };
}
