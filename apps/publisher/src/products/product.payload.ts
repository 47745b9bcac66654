import { createHash } from 'node:crypto';
import type { ChannelMapping } from '@pim/resources';

/** What a payload is built from: the channel's mapping and language. */
export interface PayloadChannel {
  mapping: ChannelMapping[];
  language: string | null;
}

/** A product as the API shows it (a publication's snapshot). */
export type ProductSnapshot = Record<string, unknown>;

/** Product fields that say where the product is published, not what it is: a change of these alone publishes nothing. */
const PUBLICATION_FIELDS = [
  'published',
  'last_published_at',
  'last_publishment_id',
  'publishments',
  'version',
  'updated_at',
];

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON with object keys sorted, so equal content gives equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isPlainObject(value))
    return `{${Object.keys(value)
      .sort()
      .filter((k) => value[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** A fingerprint of what a product is (not where it is published nor its version): equal for an unchanged product. */
export function contentHash(product: ProductSnapshot): string {
  const content = Object.fromEntries(Object.entries(product).filter(([k]) => !PUBLICATION_FIELDS.includes(k)));
  return createHash('sha256').update(canonical(content)).digest('base64url');
}

/** Whether a value is a translation (an object of language codes to strings). */
function isTranslation(v: unknown): v is Record<string, string> {
  return (
    isPlainObject(v) &&
    Object.keys(v).length > 0 &&
    Object.entries(v).every(([k, s]) => /^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/.test(k) && typeof s === 'string')
  );
}

/**
 * A translated value in the channel's language: the exact language, else one of its family (`pt`
 * for `pt-BR`, or `pt-BR` for `pt`); without a channel language, the translation as it is.
 */
export function inLanguage(value: unknown, language: string | null): unknown {
  if (!language || !isTranslation(value)) return value;
  if (value[language] !== undefined) return value[language];
  const base = language.split(/[-_]/)[0];
  const kin = Object.keys(value).find((k) => k.split(/[-_]/)[0] === base);
  return kin === undefined ? undefined : value[kin];
}

/** The value a mapping source names in the snapshot (undefined when absent). */
export function sourceValue(product: ProductSnapshot, source: string, language: string | null): unknown {
  const path = source.startsWith('attributes.')
    ? [['attributes', source.split('.')[1]], source.split('.').slice(2)]
    : [[source.split('.')[0]], source.split('.').slice(1)];
  let value: unknown = product;
  for (const key of path[0]) value = isPlainObject(value) ? value[key] : undefined;
  value = inLanguage(value, language);
  for (const key of path[1]) {
    value = isPlainObject(value) ? inLanguage(value[key], language) : undefined;
  }
  return value;
}

/** Sets a dotted path in an object, making the objects on the way. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let at = target;
  for (const key of keys.slice(0, -1)) {
    if (!isPlainObject(at[key])) at[key] = {};
    at = at[key] as Record<string, unknown>;
  }
  at[keys[keys.length - 1]] = value;
}

/**
 * The payload a channel receives for a product: each mapped field filled from the snapshot (a
 * translated value in the channel's language; a source with no value leaves its field out), or,
 * with no mapping, the whole snapshot.
 */
export function buildPayload(channel: PayloadChannel, product: ProductSnapshot): Record<string, unknown> {
  if (channel.mapping.length === 0) return product;
  const payload: Record<string, unknown> = {};
  for (const m of channel.mapping) {
    const value = sourceValue(product, m.source, channel.language);
    if (value !== undefined && value !== null) setPath(payload, m.field, value);
  }
  return payload;
}
