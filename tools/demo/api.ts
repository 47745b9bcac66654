// A small HTTP client of the public API for the demo loader: JSON in and out, the admin key on
// every call, lists paged through. Transient answers (429, 5xx, a dropped connection) are retried
// by @pim/api-client's retrying fetch, POSTs with one Idempotency-Key, which the gateway replays.
import { eachPage, retryingFetch, type Fetch, type RetryingFetch } from '@pim/api-client';

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
  /** A fetch to use instead of the global one (tests); retried around. */
  fetch?: Fetch;
}

/** JSON calls to `<url><path>` with the key; throws DemoApiError on a refusal. */
export class DemoApi {
  readonly url: string;
  private readonly key: string;
  private readonly fetch: RetryingFetch;

  constructor(opts: ApiOptions) {
    this.url = opts.url.replace(/\/+$/, '');
    this.key = opts.key;
    this.fetch = retryingFetch(opts.fetch, {
      attempts: opts.attempts ?? 6,
      // Nothing answered the very first request: the platform is down, say so at once.
      onRetry: ({ error }) => error === undefined || this.requests > 1,
    });
  }

  /** Requests sent (attempts included). */
  get requests(): number {
    return this.fetch.requests;
  }

  async call<T = Json>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const request = new Request(`${this.url}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.key}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    let res: Response;
    try {
      res = await this.fetch(request);
    } catch (err) {
      throw new DemoUnreachableError(this.url, err);
    }
    const text = await res.text();
    const json = text ? parse(text) : {};
    if (res.ok) return json as T;
    throw new DemoApiError(method, path, res.status, json as ErrorObject);
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
    const pages = eachPage((page) =>
      this.get<{ data: Json[]; pages: number }>(
        `${path}?${new URLSearchParams({ ...query, limit: '100', page: String(page) })}`,
      ),
    );
    for await (const { data } of pages) out.push(...data);
    return out;
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
