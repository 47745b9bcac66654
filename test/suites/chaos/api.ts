/** A JSON object as the API answers it. */
export type Json = Record<string, unknown>;

/** One answer of the API; status 0 when no HTTP answer came (refused, reset, timed out). */
export interface Answer {
  status: number;
  json: Json;
  headers: Headers;
  /** Why there was no answer (status 0), or the body of an error (for reports). */
  error?: string;
}

/** What a write came to after its retries. */
export interface WriteOutcome extends Answer {
  /** Requests sent. */
  attempts: number;
  /** An earlier attempt may have been carried out although it got no 2xx (it failed after the request was sent). */
  uncertain: boolean;
  /** 500 answers met on the way (a 500 is a defect, not an outage), with their messages. */
  serverErrors: string[];
  /** Each attempt's status (and why, without an answer), e.g. `0 ECONNRESET, 503, 201`. */
  trail: string;
  /** Still an outage when the deadline came: the write got no answer at all. */
  exhausted: boolean;
  /** From the first try to the last answer. */
  ms: number;
}

/** A request: JSON unless `form` is given. */
export interface Request {
  method: string;
  path: string;
  body?: unknown;
  /** A multipart body (made again for every attempt). */
  form?: () => FormData;
  headers?: Record<string, string>;
  /** Bearer key; the admin key when absent. */
  key?: string;
}

const ATTEMPT_TIMEOUT_MS = 40_000;

/** A trail with runs of one status counted: `503 ×4, 201`. */
function compact(trail: string[]): string {
  const out: string[] = [];
  for (let i = 0; i < trail.length;) {
    let j = i;
    while (j < trail.length && trail[j] === trail[i]) j++;
    out.push(j - i > 1 ? `${trail[i]} ×${j - i}` : trail[i]);
    i = j;
  }
  return out.join(', ');
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An outage answer the writer waits out and retries with the same request and Idempotency-Key. */
export function isRetriable(a: Answer): boolean {
  if (a.status === 0 || a.status === 429 || a.status >= 500) return true;
  // The gateway still runs the first request with this Idempotency-Key (or lost it in a crash).
  return a.status === 409 && a.json.title === 'Request in progress';
}

/**
 * The public API through every gateway replica: each attempt goes to the next gateway, so a killed
 * one costs a retry, not the write.
 */
export class ChaosApi {
  private turn = 0;
  /** POSTs with an Idempotency-Key waiting for an answer, by gateway. */
  private readonly keyed = new Map<string, number>();

  constructor(
    private readonly bases: string[],
    private readonly adminKey: string,
  ) {}

  /**
   * Waits (up to `timeoutMs`) until one of these gateways (by index) is carrying out a POST with
   * an Idempotency-Key, so a kill can land in one; true if one is.
   */
  async keyedRequestIn(gateways: number[], timeoutMs: number): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    const busy = () => gateways.some((i) => (this.keyed.get(this.bases[i]) ?? 0) > 0);
    while (!busy() && Date.now() < until) await sleep(5);
    return busy();
  }

  /** One attempt through the next gateway. */
  async send(req: Request): Promise<Answer> {
    const base = this.bases[this.turn++ % this.bases.length];
    const keyed = req.method === 'POST' && req.headers?.['idempotency-key'] !== undefined;
    if (keyed) this.keyed.set(base, (this.keyed.get(base) ?? 0) + 1);
    try {
      return await this.attempt(base, req);
    } finally {
      if (keyed) this.keyed.set(base, (this.keyed.get(base) ?? 1) - 1);
    }
  }

  private async attempt(base: string, req: Request): Promise<Answer> {
    const headers: Record<string, string> = { authorization: `Bearer ${req.key ?? this.adminKey}`, ...req.headers };
    let body: string | FormData | undefined;
    if (req.form) body = req.form();
    else if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(req.body);
    }
    try {
      const res = await fetch(`${base}${req.path}`, {
        method: req.method,
        headers,
        body,
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      const text = await res.text();
      let json: Json = {};
      try {
        json = text ? (JSON.parse(text) as Json) : {};
      } catch {
        json = { text };
      }
      return {
        status: res.status,
        json,
        headers: res.headers,
        ...(res.status >= 400 ? { error: String(json.message ?? text).slice(0, 300) } : {}),
      };
    } catch (err) {
      const cause = (err as { cause?: { code?: string } }).cause?.code;
      return { status: 0, json: {}, headers: new Headers(), error: cause ?? (err as Error).message };
    }
  }

  /** A file download (a 200's bytes), retried through outages. */
  async bytes(path: string, deadlineMs = 60_000): Promise<{ status: number; bytes: Buffer }> {
    const until = Date.now() + deadlineMs;
    for (;;) {
      const base = this.bases[this.turn++ % this.bases.length];
      const res = await fetch(`${base}${path}`, {
        headers: { authorization: `Bearer ${this.adminKey}` },
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      }).catch(() => undefined);
      const bytes = res ? Buffer.from(await res.arrayBuffer()) : Buffer.alloc(0);
      if ((res && res.status < 500) || Date.now() > until) return { status: res?.status ?? 0, bytes };
      await sleep(500);
    }
  }

  /** A read, retried through outages until it answers (or `deadlineMs` passes). */
  async read(path: string, deadlineMs = 60_000, key?: string): Promise<Answer> {
    return this.write({ method: 'GET', path, key }, deadlineMs);
  }

  /**
   * A write retried through outages with the same request (and so the same Idempotency-Key) until
   * it gets an answer that is not an outage, or `deadlineMs` passes.
   */
  async write(req: Request, deadlineMs: number): Promise<WriteOutcome> {
    const began = Date.now();
    const until = began + deadlineMs;
    let attempts = 0;
    let uncertain = false;
    const serverErrors: string[] = [];
    const trail: string[] = [];
    for (;;) {
      attempts += 1;
      const a = await this.send(req);
      trail.push(
        a.status === 0 ? `0 ${a.error}` : a.status === 409 && isRetriable(a) ? '409 in progress' : `${a.status}`,
      );
      if (a.status === 500) serverErrors.push(`${req.method} ${req.path}: ${a.error}`);
      if (!isRetriable(a) || Date.now() > until)
        return {
          ...a,
          attempts,
          uncertain,
          serverErrors,
          trail: compact(trail),
          exhausted: isRetriable(a),
          ms: Date.now() - began,
        };
      // A refused connection never reached a gateway; anything else may have been carried out.
      if (a.error !== 'ECONNREFUSED') uncertain = true;
      const retryAfter = Number(a.headers.get('retry-after') ?? 0) * 1000;
      await sleep(Math.min(Math.max(retryAfter, 100 * attempts), 2_000));
    }
  }
}
