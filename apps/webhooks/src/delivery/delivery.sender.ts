import { request, type Dispatcher } from 'undici';
import { RESERVED_BODY_KEYS } from '../webhook/webhook.resource';
import type { EventEnvelope } from '@pim/events';
import type { AttemptOutcome } from '@pim/resources';
import type { KeyValuePair } from '../webhook/webhook.entity';
import { isBlockedError } from '@pim/outbound';
import { parseRetryAfter } from '@pim/outbound';
import { signatureHeader } from './signature';

/** A delivery as a worker holds it: what to send, where, and with which secrets. */
export interface ClaimedDelivery {
  id: string;
  /** Lease token of the claim that holds it. */
  token: string;
  /** Number of this attempt (from 1). */
  attempt: number;
  /** Attempts counted since the delivery was last (re)queued, this one included. */
  attemptsSinceQueued: number;
  webhookId: string;
  eventId: string;
  eventType: string;
  url: string;
  headers: KeyValuePair[];
  body: KeyValuePair[];
  /** Current secret first, then the previous one during a rotation overlap (in clear). */
  secrets: string[];
  /** Set when the secrets could not be opened (an operator key missing): the attempt is not sent. */
  secretProblem?: string;
  envelope: EventEnvelope;
  requestId: string | null;
  occurredAt: Date;
}

/** How one attempt ended. */
export interface AttemptResult {
  outcome: AttemptOutcome;
  startedAt: Date;
  durationMs: number;
  statusCode?: number;
  responseBody?: string;
  error?: string;
  /** Milliseconds a 429/503 asked us to wait (Retry-After). */
  retryAfterMs?: number;
}

// Headers the platform sets or that belong to the connection; a webhook's own pairs never replace them.
const RESERVED_HEADERS = new Set([
  'content-type',
  'content-length',
  'host',
  'connection',
  'transfer-encoding',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'expect',
  'user-agent',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

const USER_AGENT = 'pim-webhooks/1.0';
const ERROR_MAX = 1_000;

/**
 * The JSON body of a delivery: `{type, timestamp, schema_version, data}` plus the webhook's body
 * pairs as top-level keys. `schema_version` is the version of the event's shape: a change a
 * receiver must handle differently comes with a new one.
 */
export function buildPayload(
  envelope: Pick<EventEnvelope, 'type' | 'occurred_at' | 'data'> & Partial<Pick<EventEnvelope, 'schema_version'>>,
  pairs: KeyValuePair[],
): string {
  // Pair keys are the webhook writer's: on a null prototype each is a member (a `__proto__` pair
  // kept from before it was refused included), never a setter of the payload's prototype.
  const payload: Record<string, unknown> = Object.assign(Object.create(null) as Record<string, unknown>, {
    type: envelope.type,
    timestamp: envelope.occurred_at,
    schema_version: envelope.schema_version ?? 1,
    data: envelope.data,
  });
  for (const { key, value } of pairs) if (!RESERVED_BODY_KEYS.includes(key)) payload[key] = value;
  return JSON.stringify(payload);
}

/** The request headers of one attempt: the webhook's headers, then the Standard Webhooks ones. */
export function buildHeaders(
  d: Pick<ClaimedDelivery, 'eventId' | 'headers' | 'secrets'>,
  body: string,
  timestampSeconds: number,
): Record<string, string> {
  // Header names are the webhook writer's (`__proto__` is a valid one): members of a null prototype.
  const headers = Object.create(null) as Record<string, string>;
  for (const { key, value } of d.headers)
    if (!RESERVED_HEADERS.has(key.toLowerCase())) headers[key.toLowerCase()] = value;
  headers['content-type'] = 'application/json';
  headers['user-agent'] = USER_AGENT;
  headers['webhook-id'] = d.eventId;
  headers['webhook-timestamp'] = String(timestampSeconds);
  headers['webhook-signature'] = signatureHeader(d.secrets, d.eventId, timestampSeconds, body);
  return headers;
}

/** The outcome a receiver's status code means. */
export function outcomeOf(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return 'success';
  if (status === 410) return 'gone';
  if (status === 429 || status === 503) return 'rate_limited';
  return 'http_error';
}

// Postgres text cannot hold NUL; a receiver's answer may contain it.
const clean = (s: string) => s.replaceAll('\u0000', '');

function describe(err: unknown): string {
  const e = err as { name?: string; message?: string; code?: string; cause?: { message?: string; code?: string } };
  const parts = [
    e?.code ?? e?.name,
    e?.message,
    e?.cause?.message && e.cause.message !== e.message ? `(${e.cause.code ?? ''} ${e.cause.message})` : undefined,
  ];
  return clean(parts.filter(Boolean).join(': ')).slice(0, ERROR_MAX);
}

/**
 * The first `max` bytes of an answer; the rest of a long one is never read (the stream is
 * destroyed). Plain stream events: an async iterator per answer costs more than the read itself.
 */
function readCapped(body: Dispatcher.ResponseData['body'], max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const done = () => {
      if (settled) return;
      settled = true;
      const all = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
      resolve(clean(all.subarray(0, max).toString('utf8')));
    };
    body.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= max) {
        done();
        body.destroy();
      }
    });
    body.once('end', done);
    body.once('error', (err) => {
      if (settled) return;
      settled = true;
      reject(err);
    });
  });
}

/** How the sender talks HTTP. */
export interface DeliverySenderOptions {
  /** The guarded keep-alive agent. */
  agent: Dispatcher;
  /** Whole attempt, connect to the end of the answer. */
  timeoutMs: number;
  /** Bytes of the answer kept. */
  responseBodyMax: number;
}

/** Sends one attempt: signs, POSTs without following redirects, classifies the answer. */
export class DeliverySender {
  constructor(private readonly opts: DeliverySenderOptions) {}

  /** Never throws: every failure is an AttemptResult. `signal` aborts (lease lost, shutdown). */
  async send(d: ClaimedDelivery, signal?: AbortSignal): Promise<AttemptResult> {
    const startedAt = new Date();
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    // One controller for both causes (the time-out, the caller's signal): cheaper than AbortSignal.any.
    const ctl = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      ctl.abort(new DOMException(`no complete answer within ${this.opts.timeoutMs} ms`, 'TimeoutError'));
    }, this.opts.timeoutMs);
    const onAbort = () => ctl.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    try {
      return await this.attempt(d, startedAt, elapsed, ctl.signal, () => timedOut, signal);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** The attempt itself under one abort signal; classifies whatever happens into an AttemptResult. */
  private async attempt(
    d: ClaimedDelivery,
    startedAt: Date,
    elapsed: () => number,
    combined: AbortSignal,
    timedOut: () => boolean,
    signal?: AbortSignal,
  ): Promise<AttemptResult> {
    let statusCode: number | undefined;
    // Unsigned is never an option: the attempt counts as refused and is retried on the schedule.
    if (d.secretProblem) return { outcome: 'blocked', startedAt, durationMs: elapsed(), error: d.secretProblem };
    try {
      const body = buildPayload(d.envelope, d.body);
      const headers = buildHeaders(d, body, Math.floor(startedAt.getTime() / 1000));
      const res = await request(d.url, {
        method: 'POST',
        headers,
        body,
        dispatcher: this.opts.agent,
        signal: combined,
        headersTimeout: this.opts.timeoutMs,
        bodyTimeout: this.opts.timeoutMs,
      });
      statusCode = res.statusCode;
      const outcome = outcomeOf(res.statusCode);
      let responseBody: string | undefined;
      try {
        responseBody = await readCapped(res.body, this.opts.responseBodyMax);
      } catch (err) {
        // The status arrived in time; an answer cut short afterwards does not change it.
        responseBody = undefined;
        if (outcome !== 'success')
          return {
            outcome,
            startedAt,
            durationMs: elapsed(),
            statusCode,
            error: `reading the answer failed: ${describe(err)}`,
          };
      }
      const result: AttemptResult = { outcome, startedAt, durationMs: elapsed(), statusCode, responseBody };
      if (outcome === 'rate_limited') {
        const wait = parseRetryAfter(res.headers['retry-after']);
        if (wait !== null) result.retryAfterMs = wait;
      }
      if (outcome === 'http_error' || outcome === 'gone' || outcome === 'rate_limited') {
        result.error =
          res.statusCode >= 300 && res.statusCode < 400
            ? `redirect (${res.statusCode}) not followed`
            : `receiver answered ${res.statusCode}`;
      }
      return result;
    } catch (err) {
      const durationMs = elapsed();
      if (isBlockedError(err)) return { outcome: 'blocked', startedAt, durationMs, error: describe(err) };
      if (signal?.aborted)
        return {
          outcome: 'interrupted',
          startedAt,
          durationMs,
          statusCode,
          error: `aborted: ${describe(signal.reason)}`,
        };
      if (
        timedOut() ||
        /timeout/i.test(String((err as Error)?.name ?? '')) ||
        (err as { code?: string })?.code?.includes('TIMEOUT')
      ) {
        return {
          outcome: 'timeout',
          startedAt,
          durationMs,
          statusCode,
          error: `no complete answer within ${this.opts.timeoutMs} ms`,
        };
      }
      return { outcome: 'network_error', startedAt, durationMs, statusCode, error: describe(err) };
    }
  }
}
