import type { Fields, Resource } from '@pim/resources';
import type { RecordCodec } from './resource.routes';

/** A message whose fields are the view's, with `id` for `_id`. */
export function mirror<V extends { _id: string }>(m: Omit<V, '_id'> & { id: string }): V {
  const { id, ...rest } = m;
  return { _id: id, ...rest } as unknown as V;
}

/** Per-field conversions where a message differs from the REST shape (links carry `id` for `_id`). */
export interface CodecOverrides {
  toInput?: Record<string, (value: unknown) => unknown>;
  fromMessage?: Record<string, (value: unknown) => unknown>;
}

/**
 * The codec of a declared resource whose messages mirror its REST shapes: a body becomes the input
 * message field by field (an omitted list or map is sent as its declared empty default, since those
 * have no presence in proto; other omitted fields stay absent for the owner to default), and a
 * message becomes the view with `_id` for `id`. Adding a field to the declaration needs no change here.
 */
export function declaredCodec<V extends { _id: string }, M extends { id: string }, In, I>(
  declaration: Pick<Resource<Fields>, 'fields'>,
  overrides: CodecOverrides = {},
): RecordCodec<V, M, In, I> {
  const writable = Object.entries(declaration.fields).filter(([, f]) => f.writable);
  return {
    fromMessage: (m) => {
      const view = mirror<V>(m as unknown as Omit<V, '_id'> & { id: string }) as Record<string, unknown>;
      for (const [name, convert] of Object.entries(overrides.fromMessage ?? {})) view[name] = convert(view[name]);
      return view as V;
    },
    toInput: (body) => {
      const given = body as Record<string, unknown>;
      const input: Record<string, unknown> = {};
      for (const [name, f] of writable) {
        const d = f.spec.default;
        const empty = Array.isArray(d) || (typeof d === 'object' && d !== null) ? structuredClone(d) : undefined;
        const value = given[name] ?? empty;
        input[name] = overrides.toInput?.[name] && value !== undefined ? overrides.toInput[name](value) : value;
      }
      return input as In;
    },
  };
}
