import { DateTime } from 'luxon';
import { UTC, canonicalTimeZone } from '@pim/resources';

// Time zones of spreadsheets. A spreadsheet's date-time cell holds a time of day with no zone: the
// time a person typed, or the time an export wrote for people to read. Which instant it names is
// the zone's business: the import's or export's `time_zone` (an IANA name, `America/Sao_Paulo`), or
// the zone a header cell names (`updated_at (America/Sao_Paulo)`), so a file carries its own zone.
// Zone rules (daylight saving, historical offsets) come from the runtime's time zone database
// through luxon.

/**
 * The instant (UTC milliseconds) a wall time names in a zone. The wall time comes as the
 * milliseconds of those same calendar fields read as UTC (how spreadsheet readers hand over a date
 * cell: 13:45 as 13:45Z). A time that does not exist there (skipped by a daylight saving change) is
 * moved forward by the gap; a time that happens twice (clocks set back) is read as the second, in
 * standard time: a wall time alone cannot say which was meant.
 */
export function wallTimeToInstant(wallMs: number, zone: string): number {
  if (zone === UTC) return wallMs;
  const wall = DateTime.fromMillis(wallMs, { zone: UTC });
  const local = DateTime.fromObject(
    {
      year: wall.year,
      month: wall.month,
      day: wall.day,
      hour: wall.hour,
      minute: wall.minute,
      second: wall.second,
      millisecond: wall.millisecond,
    },
    { zone },
  );
  return local.isValid ? local.toMillis() : wallMs;
}

/** The wall time of an instant in a zone, as the milliseconds of those calendar fields read as UTC. */
export function instantToWallTime(instantMs: number, zone: string): number {
  if (zone === UTC) return instantMs;
  const local = DateTime.fromMillis(instantMs, { zone });
  return local.isValid ? instantMs + local.offset * 60_000 : instantMs;
}

/** An instant as ISO 8601 with the zone's offset at that instant (`2024-02-01T10:20:30.000-03:00`; `Z` in UTC). */
export function isoInZone(instantMs: number, zone: string): string {
  if (zone === UTC) return new Date(instantMs).toISOString();
  return DateTime.fromMillis(instantMs, { zone }).toISO() ?? new Date(instantMs).toISOString();
}

const HEADER_ZONE = /^(.*\S)\s*\(([^()]+)\)\s*$/;

/**
 * A header label that ends with a zone in parentheses (`updated_at (America/Sao_Paulo)`, as
 * exports title their date-time columns): the label before it and the zone; undefined when the
 * parentheses hold no zone (`Size (cm)`) or there are none.
 */
export function headerTimeZone(label: string): { label: string; zone: string } | undefined {
  const match = HEADER_ZONE.exec(label);
  const zone = match ? canonicalTimeZone(match[2]) : undefined;
  return match && zone ? { label: match[1], zone } : undefined;
}

/** A header label naming its zone: `updated_at (UTC)`. */
export const labelWithTimeZone = (label: string, zone: string): string => `${label} (${zone})`;
