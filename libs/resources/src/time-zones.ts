import { IANAZone } from 'luxon';
import { z } from 'zod';

// Time zones as imports, templates and exports name them: an IANA name (`America/Sao_Paulo`) or
// UTC, spelled any case; stored in the runtime's own spelling.

/** The zone of UTC: the default of exports and of a platform without another setting. */
export const UTC = 'UTC';

/** Whether a name is a time zone the platform knows: an IANA name (any case) or UTC. */
export const isTimeZone = (name: string): boolean =>
  name.trim().toUpperCase() === UTC || IANAZone.isValidZone(name.trim());

/**
 * The zone's canonical spelling for a name matched ignoring case and aliases (`america/sao_paulo`
 * → `America/Sao_Paulo`, `Etc/UTC` → `UTC`), or undefined when no zone has that name.
 */
export function canonicalTimeZone(name: string): string | undefined {
  if (!isTimeZone(name)) return undefined;
  const trimmed = name.trim();
  if (trimmed.toUpperCase() === UTC) return UTC;
  // The runtime's own spelling: Intl resolves case and aliases the way other programs do.
  return new Intl.DateTimeFormat('en-US', { timeZone: trimmed }).resolvedOptions().timeZone;
}

/** A time zone field's input: an IANA name or UTC. */
export const timeZoneSchema = z
  .string()
  .trim()
  .min(1)
  .max(64)
  .refine(isTimeZone, 'is not a time zone: write an IANA name such as America/Sao_Paulo, or UTC')
  .meta({ example: 'America/Sao_Paulo' });
