import type { ReceivedRequest } from '@pim/testing';
import type { Json } from './api';
import type { Ledger } from './ledger';
import type { OutboxRow } from './truth';

/** A delivery the receiver got. */
export interface Delivery {
  webhookId: string;
  type: string;
  data: Json;
}

/** What the receiver got, parsed (requests it refused on purpose included: their retries carry the same id). */
export function deliveries(requests: readonly ReceivedRequest[]): Delivery[] {
  return requests.map((r) => {
    const body = JSON.parse(r.body) as { type: string; data: Json };
    return { webhookId: String(r.headers['webhook-id']), type: body.type, data: body.data ?? {} };
  });
}

/** What the event checks counted. */
export interface EventCounts {
  /** Events in the outboxes since the webhooks were in place. */
  events: number;
  received: number;
  distinctIds: number;
  /** Copies beyond the first of an event. */
  duplicates: number;
}

/** The change an event is about: its type, record and version (or its whole data when it has no version). */
function changeKey(type: string, data: Json): string {
  return data.version === undefined ? `${type}|${JSON.stringify(data)}` : `${type}|${data._id}|${data.version}`;
}

/**
 * Nothing lost, one id per event: every outbox event since `since` reached the receiver; every
 * webhook-id the receiver saw is an event of some outbox; all copies of one change carry one
 * webhook-id and one body; no change was recorded as two events; every carried-out write's
 * version change reached the receiver.
 */
export function checkEvents(
  all: readonly OutboxRow[],
  since: Date,
  got: readonly Delivery[],
  ledger: Ledger,
  failures: string[],
): EventCounts {
  const byId = new Map<string, Delivery[]>();
  for (const d of got) byId.set(d.webhookId, [...(byId.get(d.webhookId) ?? []), d]);
  const must = all.filter((e) => e.occurredAt >= since);
  const lost = must.filter((e) => !byId.has(e.id));
  for (const e of lost.slice(0, 20))
    failures.push(`lost: ${e.type} ${e.id} of ${e.recordId} v${e.version} (${e.schema}, published: ${e.published})`);
  if (lost.length > 20) failures.push(`lost: ${lost.length - 20} more events`);

  const known = new Set(all.map((e) => e.id));
  const phantoms = [...byId.keys()].filter((id) => !known.has(id));
  for (const id of phantoms.slice(0, 10))
    failures.push(`a webhook-id no outbox holds: ${id} (${byId.get(id)![0].type})`);

  for (const [id, copies] of byId) {
    const bodies = new Set(copies.map((c) => `${c.type}|${JSON.stringify(c.data)}`));
    if (bodies.size > 1) failures.push(`webhook-id ${id} carried ${bodies.size} different events`);
  }
  const idsByChange = new Map<string, Set<string>>();
  for (const d of got) {
    const key = changeKey(d.type, d.data);
    idsByChange.set(key, (idsByChange.get(key) ?? new Set()).add(d.webhookId));
  }
  for (const [key, ids] of idsByChange)
    if (ids.size > 1)
      failures.push(`one change delivered under ${ids.size} webhook-ids: ${key} (${[...ids].join(', ')})`);

  const perChange = new Map<string, OutboxRow[]>();
  for (const e of all.filter((x) => x.version !== null && x.recordId !== null)) {
    const key = `${e.type}|${e.recordId}|${e.version}`;
    perChange.set(key, [...(perChange.get(key) ?? []), e]);
  }
  for (const [key, rows] of perChange)
    if (rows.length > 1) failures.push(`one change stored as ${rows.length} events: ${key}`);

  const seen = new Set(got.map((d) => `${d.data._id}|${d.data.version}`));
  for (const w of ledger.writes) {
    if ((w.result !== 'acked' && w.result !== 'applied') || !w.id || w.version === undefined) continue;
    if (!seen.has(`${w.id}|${w.version}`))
      failures.push(`no event reached the receiver for ${w.op} (${w.result}) of ${w.id} at version ${w.version}`);
  }
  return {
    events: must.length,
    received: got.length,
    distinctIds: byId.size,
    duplicates: got.length - byId.size,
  };
}
