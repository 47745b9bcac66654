import type { ChannelView } from '@pim/resources';
import { inLanguage, type ProductSnapshot } from '../products/product.payload';

/** One reason a product may not be published to a channel. */
export interface ReadinessProblem {
  /** What lacks: `attributes.<key>`, `enabled`. */
  field: string;
  message: string;
}

/** Whether a value counts as filled: not absent, null, an empty string, list or object. */
function filled(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim().length > 0;
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

/**
 * What keeps a product from being published to a channel now: the channel is disabled, or an
 * attribute the channel requires has no value (a translated value: none in the channel's
 * language, when the channel has one). Empty: ready.
 */
export function readinessProblems(
  channel: Pick<ChannelView, 'code' | 'enabled' | 'required_attributes' | 'language'>,
  product: ProductSnapshot,
): ReadinessProblem[] {
  const problems: ReadinessProblem[] = [];
  if (!channel.enabled)
    problems.push({
      field: 'enabled',
      message: `the channel '${channel.code}' is disabled: nothing is published to it`,
    });
  const attributes = (product.attributes ?? {}) as Record<string, unknown>;
  for (const key of channel.required_attributes ?? []) {
    const value = inLanguage(attributes[key], channel.language ?? null);
    if (!filled(value))
      problems.push({
        field: `attributes.${key}`,
        message: `the channel '${channel.code}' requires a value of '${key}'${channel.language ? ` (in ${channel.language})` : ''}; the product has none`,
      });
  }
  return problems;
}
