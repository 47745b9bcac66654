import { MAX_TRACKING, type TrackingEntry, type TrackingStatus } from '@pim/resources';

/** What a publication's tracking is kept on. */
interface Tracked {
  tracking: unknown;
}

/**
 * Adds a step to a publication's tracking. The list is bounded: past the limit the oldest entries
 * after the first (the creation) give way, so a publication retried for long keeps its start and
 * its latest steps.
 */
export function track(
  record: Tracked,
  status: TrackingStatus,
  message: string,
  data: string[] = [],
  at: Date = new Date(),
): TrackingEntry {
  const entry: TrackingEntry = {
    status,
    message: message.slice(0, 2_000),
    created_at: at.toISOString(),
    data: data.slice(0, 20).map((d) => d.slice(0, 2_000)),
  };
  const list = [...((record.tracking as TrackingEntry[] | null) ?? []), entry];
  record.tracking = list.length > MAX_TRACKING ? [list[0], ...list.slice(list.length - MAX_TRACKING + 1)] : list;
  return entry;
}
