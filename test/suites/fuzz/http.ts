import { connect } from 'node:net';
import { Pool } from 'undici';

/** A request as the fuzzer sends it. */
export interface FuzzRequest {
  method: string;
  /** The path and query, already percent-encoded as they go on the wire. */
  path: string;
  headers: Record<string, string>;
  body?: Buffer;
  /**
   * The whole request as bytes, for what a well-behaved client cannot send (an overlong request
   * line, a header without a colon, raw non-ASCII in the path): written to a socket of its own,
   * which is half-closed after them when `halfClose` (a body cut short: nothing more will come).
   */
  raw?: { bytes: Buffer; halfClose?: boolean };
}

/** What came back; `status` 0 when no answer came (`error` says why). */
export interface FuzzResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  error?: string;
  ms: number;
}

/** Bytes of a body kept for the checks (an export download may be larger; the rest is dropped). */
const BODY_CAP = 256 * 1024;

/** Reads at most `cap` bytes of a stream, then lets the rest go. */
async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }, cap: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size >= cap) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks);
}

/** Parses an HTTP/1.1 answer read off a socket: the first final one (after any interim `100 Continue`). */
export function parseRawResponse(bytes: Buffer): Omit<FuzzResponse, 'ms'> {
  const interim = /^HTTP\/1\.[01] 1(0[02-9]|[1-9]\d) [^\r\n]*\r\n(?:[^\r\n]+\r\n)*\r\n/.exec(bytes.toString('latin1'));
  if (interim) return parseRawResponse(bytes.subarray(interim[0].length));
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return { status: 0, headers: {}, body: bytes, error: `no complete answer (${bytes.length} bytes)` };
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = bytes.subarray(end + 4);
  const length = Number(headers['content-length']);
  if (Number.isInteger(length)) body = body.subarray(0, length);
  return { status, headers, body, error: status ? undefined : `unreadable status line: ${statusLine.slice(0, 80)}` };
}

/**
 * The X-Request-Id of a case: the gateway echoes it and logs it (and the apps behind it log it
 * with each call), so a case of a report can be found in the platform's logs. A seed outside
 * `A-Z a-z 0-9 . _ : -` makes ids the gateway replaces with its own.
 */
export const requestIdOf = (seed: string, index: number) => `fz-${seed}-${index}`;

/** The longest Retry-After honoured: a store that is not back by then is a failure to report. */
const RETRY_AFTER_CAP_MS = 10_000;

/**
 * How long to wait before sending a request again: the Retry-After of a 503 (delta-seconds or an
 * HTTP date, at most `RETRY_AFTER_CAP_MS`); undefined for any other answer.
 */
export function retryDelayMs(res: Pick<FuzzResponse, 'status' | 'headers'>, now = Date.now()): number | undefined {
  const value = res.headers['retry-after']?.trim();
  if (res.status !== 503 || !value) return undefined;
  const ms = /^\d+$/.test(value) ? Number(value) * 1_000 : Date.parse(value) - now;
  return Number.isNaN(ms) ? 1_000 : Math.min(RETRY_AFTER_CAP_MS, Math.max(0, ms));
}

/**
 * Sends a request, and once more after the wait when the answer is a 503 with Retry-After (a
 * shared Postgres out of connections is not a defect of the request): only a second 503 stands.
 * `first` is the 503 that was retried.
 */
export async function sendRetrying(
  send: () => Promise<FuzzResponse>,
  wait: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<{ res: FuzzResponse; first?: FuzzResponse }> {
  const first = await send();
  const delay = retryDelayMs(first);
  if (delay === undefined) return { res: first };
  await wait(delay);
  return { res: await send(), first };
}

/** Sends fuzzed requests to one origin: ordinary ones over a keep-alive pool, raw ones each on a socket of its own. */
export class FuzzClient {
  private readonly pool: Pool;
  private readonly host: string;
  private readonly port: number;

  constructor(
    readonly origin: string,
    private readonly timeoutMs = 40_000,
  ) {
    const url = new URL(origin);
    this.host = url.hostname;
    this.port = Number(url.port || 80);
    this.pool = new Pool(url.origin, {
      connections: 16,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      keepAliveTimeout: 4_000,
    });
  }

  /** Sends a request and reads its answer (at most `maxBody` bytes of its body are kept). */
  async send(req: FuzzRequest, maxBody = BODY_CAP): Promise<FuzzResponse> {
    const started = Date.now();
    try {
      const r = req.raw
        ? await this.sendRaw(req.raw.bytes, req.raw.halfClose ?? false)
        : await this.sendPooled(req, maxBody);
      return { ...r, ms: Date.now() - started };
    } catch (err) {
      return { status: 0, headers: {}, body: Buffer.alloc(0), error: (err as Error).message, ms: Date.now() - started };
    }
  }

  private async sendPooled(req: FuzzRequest, maxBody: number): Promise<Omit<FuzzResponse, 'ms'>> {
    const res = await this.pool.request({
      method: req.method as 'GET',
      path: req.path,
      headers: req.headers,
      body: req.body,
    });
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(res.headers)) headers[k] = Array.isArray(v) ? v.join(', ') : String(v ?? '');
    // A stream of events stays open while its import runs: its first bytes are enough.
    const cap = (headers['content-type'] ?? '').startsWith('text/event-stream') ? 1 : maxBody;
    const body = await readCapped(res.body, cap);
    return { status: res.statusCode, headers, body };
  }

  private sendRaw(bytes: Buffer, halfClose: boolean): Promise<Omit<FuzzResponse, 'ms'>> {
    return new Promise((resolve) => {
      const socket = connect(this.port, this.host);
      const chunks: Buffer[] = [];
      let done = false;
      const finish = (error?: string) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        socket.destroy();
        const received = Buffer.concat(chunks);
        if (received.length === 0) {
          resolve({ status: 0, headers: {}, body: received, error: error ?? 'connection closed without an answer' });
          return;
        }
        resolve(parseRawResponse(received));
      };
      const timer = setTimeout(() => finish('no answer in time'), this.timeoutMs);
      socket.on('data', (c: Buffer) => {
        chunks.push(c);
        // One answer is all a raw request gets; stop once it is whole.
        const r = parseRawResponse(Buffer.concat(chunks));
        const length = Number(r.headers['content-length']);
        if (r.status && Number.isInteger(length) && r.body.length >= length) finish();
      });
      socket.on('error', (err) => finish(err.message));
      socket.on('close', () => finish());
      // Half-closing at once would make Node abort the request before it is answered.
      socket.write(bytes, () => {
        if (halfClose) socket.end();
      });
    });
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}
