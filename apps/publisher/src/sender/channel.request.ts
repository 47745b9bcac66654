import { request, type Dispatcher } from 'undici';
import { BLOCKED_CODE, isBlockedError, parseRetryAfter } from '@pim/outbound';
import type { ChannelEndpoint } from '@pim/resources';

/**
 * How one request to a channel ended. `error` names, in a word, why a request got no answer
 * (`timeout`, a network error's code, the guard's refusal): its span's `error.type`.
 */
export type ChannelAnswer =
  | { kind: 'published'; status: number; url: string | null; durationMs: number }
  | {
      kind: 'retry';
      status?: number;
      error?: string;
      message: string;
      retryAfterMs: number | null;
      durationMs: number;
    }
  | { kind: 'failed'; status?: number; error?: string; message: string; durationMs: number };

/** Bytes of a channel's answer read (for its URL or its message); the rest is dropped. */
const BODY_MAX = 64 * 1024;
const MESSAGE_MAX = 1_000;
const USER_AGENT = 'pim-publisher/1.0';

/** Statuses worth asking again: the channel may answer otherwise later. */
const RETRYABLE = new Set([408, 425, 429]);

/** The body of an answer as text, at most BODY_MAX bytes. */
async function readSome(body: Dispatcher.ResponseData['body']): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const b = chunk as Buffer;
    if (size + b.length > BODY_MAX) {
      chunks.push(b.subarray(0, BODY_MAX - size));
      size = BODY_MAX;
      body.destroy();
      break;
    }
    chunks.push(b);
    size += b.length;
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parseJson(text: string): Record<string, unknown> | null {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

const firstString = (o: Record<string, unknown> | null, keys: string[]): string | null => {
  for (const k of keys) if (typeof o?.[k] === 'string' && (o[k] as string).length > 0) return o[k] as string;
  return null;
};

/** Where the channel shows the product: the Location header, else `url`, `publishment_url` or `permalink` of a JSON answer. */
function listingUrl(headers: Dispatcher.ResponseData['headers'], json: Record<string, unknown> | null): string | null {
  const location = headers.location;
  const url =
    (Array.isArray(location) ? location[0] : location) ?? firstString(json, ['url', 'publishment_url', 'permalink']);
  return url ? url.slice(0, 2_048) : null;
}

/** The channel's own words for a refusal: `message` or `error` of a JSON answer (with its `errors`), else the text. */
function channelMessage(status: number, text: string): string {
  const json = parseJson(text);
  const said = firstString(json, ['message', 'error', 'detail', 'title']);
  const errors = json && Array.isArray(json.errors) ? JSON.stringify(json.errors) : '';
  const words = said ? `${said}${errors ? ` ${errors}` : ''}` : text.trim().replace(/\s+/g, ' ');
  return `The channel answered ${status}${words ? `: ${words}` : ''}`.slice(0, MESSAGE_MAX);
}

/** Why a request got no answer: in a word (`timeout`, the network error's code), and in words. */
function failure(err: unknown, timeoutMs: number): { error: string; message: string } {
  const e = err as { name?: string; code?: string; message?: string; cause?: unknown };
  if (e?.name === 'TimeoutError' || e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT')
    return { error: 'timeout', message: `The channel did not answer within ${timeoutMs} ms` };
  const cause = e?.cause as { code?: string; message?: string } | undefined;
  const code = cause?.code ?? e?.code;
  return {
    error: code ?? e?.name ?? 'Error',
    message:
      `The channel could not be reached${code ? ` (${code})` : ''}: ${cause?.message ?? e?.message ?? String(err)}`.slice(
        0,
        MESSAGE_MAX,
      ),
  };
}

/**
 * Sends one publication's payload to a channel endpoint (its headers, JSON, an Idempotency-Key
 * naming the publication so a channel can drop a repeat) and classifies the answer: 2xx published
 * (with the listing URL it gives); a timeout, a network error, 408, 425, 429 or a 5xx worth a retry;
 * anything else, or an address the policy refuses, failed with the channel's message. Never throws.
 */
export async function sendToChannel(
  agent: Dispatcher,
  endpoint: ChannelEndpoint,
  payload: unknown,
  publicationId: string,
): Promise<ChannelAnswer> {
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  const headers: Record<string, string> = {};
  for (const h of endpoint.headers) headers[h.key] = h.value;
  headers['content-type'] = 'application/json';
  headers['idempotency-key'] = publicationId;
  headers['user-agent'] ??= USER_AGENT;
  try {
    const res = await request(endpoint.url, {
      method: endpoint.method,
      headers,
      body: JSON.stringify(payload),
      dispatcher: agent,
      signal: AbortSignal.timeout(endpoint.timeout_ms),
      headersTimeout: endpoint.timeout_ms,
      bodyTimeout: endpoint.timeout_ms,
    });
    const text = await readSome(res.body);
    const status = res.statusCode;
    if (status >= 200 && status < 300)
      return { kind: 'published', status, url: listingUrl(res.headers, parseJson(text)), durationMs: took() };
    const message = channelMessage(status, text);
    if (status >= 500 || RETRYABLE.has(status))
      return {
        kind: 'retry',
        status,
        message,
        retryAfterMs: parseRetryAfter(res.headers['retry-after']),
        durationMs: took(),
      };
    return { kind: 'failed', status, message, durationMs: took() };
  } catch (err) {
    if (isBlockedError(err))
      return {
        kind: 'failed',
        error: BLOCKED_CODE,
        message: `The channel's address is refused: ${(err as Error).message}`.slice(0, MESSAGE_MAX),
        durationMs: took(),
      };
    return { kind: 'retry', ...failure(err, endpoint.timeout_ms), retryAfterMs: null, durationMs: took() };
  }
}
