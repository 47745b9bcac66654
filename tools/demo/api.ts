// A small HTTP client of the public API for the demo loader: JSON in and out, the admin key on
// every call, lists paged through, and transient answers (429, 5xx, a dropped connection) retried
// with the same Idempotency-Key, which the gateway replays and never stores for a 5xx.
import { randomUUID } from 'node:crypto';

export type Json = Record<string, unknown>;

/** The API's error object (every error response carries one). */
interface ErrorObject {
  code?: number;
  kind?: string;
  title?: string;
  message?: string;
  solution?: string;
  details?: { field: string; message: string }[];
  request_id?: string;
}

/** An answer the API refused, with its error object's message, solution and details. */
export class DemoApiError extends Error {
  constructor(
    readonly method: string,
    readonly path: string,
    readonly status: number,
    readonly body: ErrorObject,
  ) {
    super(`${method} ${path} answered ${status}: ${body.message ?? body.title ?? 'no error object'}`);
    this.name = 'DemoApiError';
  }

  /** The error as a user reads it: what was called, the message, each detail, the solution. */
  describe(): string {
    let path = this.path;
    try {
      path = decodeURIComponent(path);
    } catch {
      // keep it encoded
    }
    const lines = [`${this.method} ${path} → ${this.status} ${this.body.title ?? ''}`.trimEnd()];
    lines.push(`  message:  ${this.body.message ?? '(none)'}`);
    for (const d of this.body.details ?? []) lines.push(`  detail:   ${d.field}: ${d.message}`);
    if (this.body.solution) lines.push(`  solution: ${this.body.solution}`);
    if (this.body.request_id) lines.push(`  request:  ${this.body.request_id}`);
    return lines.join('\n');
  }
}

/** The API could not be reached at all. */
export class DemoUnreachableError extends Error {
  constructor(url: string, cause: unknown) {
    super(
      `cannot reach the API at ${url} (${(cause as Error)?.message ?? cause}); is the platform running (npm start)? Set PIM_API_URL if it listens elsewhere`,
    );
    this.name = 'DemoUnreachableError';
  }
}

export interface ApiOptions {
  /** The API's base URL, with `/api/v1`. */
  url: string;
  /** An API key with the scopes the demo writes (the admin key). */
  key: string;
  /** Attempts of one call while the answer is transient (default 6). */
  attempts?: number;
}

const TRANSIENT = new Set([429, 500, 502, 503, 504]);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** JSON calls to `<url><path>` with the key; throws DemoApiError on a refusal. */
export class DemoApi {
  readonly url: string;
  /** Requests sent (attempts included). */
  requests = 0;
  private readonly key: string;
  private readonly attempts: number;

  constructor(opts: ApiOptions) {
    this.url = opts.url.replace(/\/+$/, '');
    this.key = opts.key;
    this.attempts = opts.attempts ?? 6;
  }

  async call<T = Json>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const idempotency = method === 'POST' ? { 'idempotency-key': randomUUID() } : {};
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        this.requests++;
        res = await fetch(`${this.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${this.key}`,
            accept: 'application/json',
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...idempotency,
            ...headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (err) {
        // Nothing answered: the platform is down (first call) or dropped the connection.
        if (attempt >= this.attempts || this.requests === 1) throw new DemoUnreachableError(this.url, err);
        await sleep(backoff(attempt));
        continue;
      }
      const text = await res.text();
      const json = text ? parse(text) : {};
      if (res.ok) return json as T;
      if (TRANSIENT.has(res.status) && attempt < this.attempts) {
        await sleep(retryDelay(res, attempt));
        continue;
      }
      throw new DemoApiError(method, path, res.status, json as ErrorObject);
    }
  }

  get<T = Json>(path: string): Promise<T> {
    return this.call<T>('GET', path);
  }

  post<T = Json>(path: string, body: unknown): Promise<T> {
    return this.call<T>('POST', path, body);
  }

  /** A replace guarded by the version read (If-Match): a record changed meanwhile is a 412, not overwritten. */
  put<T = Json>(path: string, body: unknown, version?: number): Promise<T> {
    return this.call<T>('PUT', path, body, version === undefined ? {} : { 'if-match': `"${version}"` });
  }

  /** Every record a list query selects, page by page (100 a page). */
  async list(path: string, query: Record<string, string> = {}): Promise<Json[]> {
    const out: Json[] = [];
    for (let page = 1; ; page++) {
      const qs = new URLSearchParams({ ...query, limit: '100', page: String(page) });
      const r = await this.get<{ data: Json[]; pages: number }>(`${path}?${qs}`);
      out.push(...r.data);
      if (page >= r.pages || r.data.length === 0) return out;
    }
  }

  /** The records whose `field` is one of `values` (`<field>_in`, in chunks the query string takes). */
  async listIn(path: string, field: string, values: string[], query: Record<string, string> = {}): Promise<Json[]> {
    const out: Json[] = [];
    for (const chunk of chunks(values, 100, 6000))
      out.push(...(await this.list(path, { ...query, [`${field}_in`]: chunk.join(',') })));
    return out;
  }
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 500) };
  }
}

function backoff(attempt: number): number {
  return Math.min(8_000, 500 * 2 ** (attempt - 1));
}

/** The wait a 429/503 asks for (Retry-After, else RateLimit-Reset), else a doubling back-off. */
function retryDelay(res: Response, attempt: number): number {
  for (const h of ['retry-after', 'ratelimit-reset']) {
    const s = Number(res.headers.get(h));
    if (Number.isFinite(s) && s > 0) return Math.min(60_000, s * 1000);
  }
  return backoff(attempt);
}

/** `values` cut into chunks of at most `size` items and `chars` characters joined. */
function chunks(values: string[], size: number, chars: number): string[][] {
  const out: string[][] = [];
  let cur: string[] = [];
  let len = 0;
  for (const v of values) {
    const add = encodeURIComponent(v).length + 1;
    if (cur.length > 0 && (cur.length >= size || len + add > chars)) {
      out.push(cur);
      cur = [];
      len = 0;
    }
    cur.push(v);
    len += add;
  }
  if (cur.length > 0) out.push(cur);
  return out;
}

/** Runs fn over items, at most `limit` at once, keeping the order of the results. */
export async function mapLimit<T, R>(items: T[], limit: number, fn: (item: T, i: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
