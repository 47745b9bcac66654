import { Router, type Request, type Response } from 'express';
import { z, type ZodType } from 'zod';
import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { AuthenticationError, ValidationError, fromZodError } from '@pim/errors';
import { currentContext } from '@pim/logging';
import { errorResponse, errorResponseHeaders, errorResponseName } from '../openapi/errors';
import {
  COUNTED_HEADERS,
  headerRef,
  ownHeaders,
  responseHeaders,
  sharedHeaderObject,
  type SharedHeader,
} from '../openapi/headers';
import { authorize, scopeNote, type Principal, type Scope } from '../auth/scopes';
import { requestHash, type IdempotencyService } from '../idempotency/idempotency.service';
import { setRoute } from './metrics';

/** What a route handler returns; the route writes it. */
export interface RouteResult {
  status: number;
  body?: unknown;
  /** A body already serialized as JSON by the owning app (sent as it is, instead of `body`). */
  json?: Uint8Array;
  /**
   * A body sent as it is produced (a file, a stream of events), with backpressure; leaving the
   * iteration early (the caller went away) ends the producer. Its headers say its type.
   */
  stream?: AsyncIterable<Uint8Array | string>;
  headers?: Record<string, string>;
}

/** What a route handler receives: validated params and body, the raw query, the request id. */
export interface RouteInput<B> {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: B;
  headers: Request['headers'];
  path: string;
  principal: Principal;
  /** The request itself, for a route that reads its body as a stream (`upload`). */
  request: Request;
}

/** One REST route: its HTTP binding, its OpenAPI description and its handler, declared together. */
export interface RouteSpec<B extends ZodType | undefined = undefined> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express path under the API base, e.g. `/webhooks/:id`. */
  path: string;
  operationId: string;
  /** The scope a caller's key needs; declared here so no route is open by accident. */
  scope: Scope;
  summary: string;
  description?: string;
  tags: string[];
  /** Schema of the JSON body, when the route takes one. */
  body?: B;
  /**
   * A `multipart/form-data` body instead of JSON: its parts, documented (a file part is a string
   * of format `binary`); the handler reads `request` as a stream.
   */
  upload?: z.ZodObject;
  /**
   * The route answers as it goes (an upload, a file, a stream of events): the gateway's request
   * timeout does not apply; its own deadlines bound it.
   */
  longRunning?: boolean;
  /**
   * Query parameters the route takes: documented, and checked before the handler runs (a bad or
   * missing one is a 400 naming it); the handler receives them parsed.
   */
  query?: z.ZodObject;
  /**
   * The query of a list: documented here, parsed by the list language in the handler
   * (`parseListQuery`), whose errors name the allowed fields and operators.
   */
  listQuery?: z.ZodObject;
  /** Request headers the route reads (If-Match...). */
  requestHeaders?: z.ZodObject;
  responses: Record<
    number,
    {
      description: string;
      schema?: ZodType;
      headers?: z.ZodObject;
      /**
       * The body's media type when it is not JSON (`text/csv`, `text/event-stream`), or the types
       * it may be (a download in the format of its file), each with the same schema.
       */
      contentType?: string | readonly string[];
    }
  >;
  /** Error statuses this route can answer besides 400/500/503. */
  errors?: number[];
  handler: (input: RouteInput<B extends ZodType ? z.infer<B> : undefined>) => Promise<RouteResult>;
}

/** Writes a streamed body with backpressure; a caller that goes away stops the producer. */
async function sendStream(res: Response, result: RouteResult & { stream: AsyncIterable<Uint8Array | string> }) {
  res.status(result.status);
  res.flushHeaders();
  const source = result.stream[Symbol.asyncIterator]();
  let gone = false;
  res.once('close', () => {
    gone = true;
  });
  try {
    while (!gone) {
      const next = await source.next();
      if (next.done) break;
      if (!res.write(next.value))
        await new Promise((r) => (gone ? r(undefined) : res.once('drain', r).once('close', r)));
    }
  } catch (err) {
    // The status is out; all that is left is to cut the body short so the caller sees it incomplete.
    res.destroy(err as Error);
    return;
  } finally {
    if (gone) await source.return?.();
  }
  res.end();
}

/** Writes a route's result; a GET whose ETag matches If-None-Match gets 304 without a body. */
function send(res: Response, req: Request, result: RouteResult): void | Promise<void> {
  if (res.headersSent) return; // the request timed out and was already answered
  for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
  const etag = result.headers?.ETag;
  if (req.method === 'GET' && etag && result.status === 200) {
    const inm = req.get('if-none-match');
    if (
      inm &&
      (inm.trim() === '*' ||
        inm
          .split(',')
          .map((t) => t.trim().replace(/^W\//, ''))
          .includes(etag))
    ) {
      res.status(304).end();
      return;
    }
  }
  if (result.stream !== undefined) return sendStream(res, { ...result, stream: result.stream });
  if (result.json !== undefined)
    res
      .status(result.status)
      .type('application/json')
      .send(Buffer.from(result.json.buffer, result.json.byteOffset, result.json.byteLength));
  else if (result.body === undefined) res.status(result.status).end();
  else res.status(result.status).json(result.body);
}

const toOpenApiPath = (p: string) => p.replace(/:([A-Za-z_]+)/g, '{$1}');

/** A declared route: what the route census checks. */
export interface DeclaredRoute {
  method: string;
  /** Full express path, e.g. /api/v1/webhooks/:id. */
  path: string;
  scope: Scope;
}

const idempotencyKeyHeader = z
  .string()
  .regex(/^[\x21-\x7e]{1,255}$/)
  .max(255)
  .optional()
  .meta({
    description:
      'Makes the POST safe to retry: the same key and body within 24 h replays the first response, also after a 5xx or a dropped connection whose request had been carried out; another body is a 409',
    example: '8f14e45f-ceea-467f-a0e8-3f1b5d2e6b4a',
  });

const ifNoneMatchHeader = z
  .string()
  .regex(/^\s*(\*|(W\/)?"[^"]*"(\s*,\s*(W\/)?"[^"]*")*)\s*$/)
  .max(1000)
  .optional()
  .meta({ description: 'Answer 304 without a body when the record is still at one of these ETags', example: '"3"' });

/** Name of the security scheme in the OpenAPI document. */
export const SECURITY_SCHEME = 'apiKey';

/**
 * Refuses a caller whose key lacks the scope of the declared route (named by `Api.labels`) before
 * its body is read or checked: a key without the scope learns nothing from a 400 or a 415 about
 * what the route would take. The route's handler checks again (routes not declared have none).
 */
export function authorizeDeclared(_req: Request, res: Response, next: () => void): void {
  const scope = res.locals.scope as Scope | undefined;
  const principal = res.locals.principal as Principal | undefined;
  if (scope && principal) authorize(principal, scope);
  next();
}

/** A router whose every route is also registered in the OpenAPI document. */
export class Api {
  readonly router = Router();
  /**
   * Names the declared route a request is for (`res.locals.route`, for the metrics) and passes it
   * on; mounted before authentication, so a refused request is still counted under its route.
   */
  readonly labels = Router();
  readonly declared: DeclaredRoute[] = [];
  /** `POST /imports`: the routes that take multipart/form-data. */
  private readonly uploads = new Set<string>();
  private readonly components = new Set<string>();

  constructor(
    private readonly registry: OpenAPIRegistry,
    private readonly base: string,
    private readonly idempotency?: IdempotencyService,
  ) {}

  /** Declares a route once: express handler + OpenAPI operation. */
  route<B extends ZodType | undefined = undefined>(spec: RouteSpec<B>): void {
    this.registry.registerPath(this.describe(spec));
    const route = `${this.base}${spec.path}`;
    this.declared.push({ method: spec.method, path: route, scope: spec.scope });
    // The first declared route that matches names it, as the router below picks it, and its scope
    // (checked once the caller is known, before the body is read: `authorizeDeclared`).
    this.labels[spec.method](spec.path, (_req: Request, res: Response, next: (to: 'router') => void) => {
      setRoute(res, route);
      res.locals.scope = spec.scope;
      next('router');
    });
    if (spec.upload) this.uploads.add(`${spec.method.toUpperCase()} ${spec.path}`);
    this.router[spec.method](spec.path, async (req: Request, res: Response) => {
      const principal = res.locals.principal as Principal | undefined;
      if (!principal) throw new AuthenticationError('This route needs an API key');
      authorize(principal, spec.scope);
      if (spec.longRunning) (res.locals.cancelTimeout as (() => void) | undefined)?.();
      let body: unknown = undefined;
      if (spec.body) {
        const parsed = spec.body.safeParse(req.body);
        if (!parsed.success) {
          if (req.body === undefined) {
            throw new ValidationError('This request needs a JSON body', {
              title: 'Missing body',
              solution: 'Send a JSON object with "Content-Type: application/json"',
            });
          }
          throw fromZodError(parsed.error);
        }
        body = parsed.data;
      }
      let query = req.query as Record<string, unknown>;
      if (spec.query) {
        const parsed = spec.query.safeParse(query);
        if (!parsed.success) {
          throw fromZodError(parsed.error, {
            title: 'Invalid query parameters',
            solution: 'Correct the query parameters named in details (see the operation in the API document)',
          });
        }
        query = { ...query, ...(parsed.data as Record<string, unknown>) };
      }
      const path = `${this.base}${req.path}`;
      const run = () =>
        spec.handler({
          params: req.params as Record<string, string>,
          query,
          body: body as never,
          headers: req.headers,
          path,
          principal,
          request: req,
        });
      const idempotencyKey = req.get('idempotency-key');
      if (spec.method === 'post' && idempotencyKey !== undefined && this.idempotency && !spec.upload) {
        const hash = requestHash(req.method, path, req.body ?? null);
        const { response, replayed } = await this.idempotency.run(
          principal.keyId,
          idempotencyKey,
          hash,
          async (token) => {
            // Every call the request makes carries a token derived from it: an app that already
            // carried a call out (its answer lost on the way back) answers from that first run.
            const context = currentContext();
            if (context) context.idempotency = { token, calls: new Map() };
            const r = await run();
            return { status: r.status, headers: r.headers ?? {}, body: r.body };
          },
        );
        if (replayed) res.setHeader('Idempotent-Replayed', 'true');
        return send(res, req, response);
      }
      return send(res, req, await run());
    });
  }

  /** Whether a request is for a route that takes multipart/form-data (its path under the API base). */
  takesUpload(method: string, path: string): boolean {
    return this.uploads.has(`${method} ${path}`);
  }

  /** Registers a component once per document. */
  private component(type: 'headers' | 'responses', name: string, build: () => unknown): void {
    const key = `${type}/${name}`;
    if (this.components.has(key)) return;
    this.components.add(key);
    this.registry.registerComponent(type, name, build() as never);
  }

  private headerRefs(names: readonly SharedHeader[]): Record<string, { $ref: string }> {
    for (const name of names) this.component('headers', name, () => sharedHeaderObject(name));
    return Object.fromEntries(names.map((name) => [name, headerRef(name)]));
  }

  private errorResponseRef(status: number): { $ref: string } {
    const name = errorResponseName(status);
    this.headerRefs(errorResponseHeaders(status));
    this.component('responses', name, () => errorResponse(status));
    return { $ref: `#/components/responses/${name}` };
  }

  private describe<B extends ZodType | undefined>(spec: RouteSpec<B>): RouteConfig {
    const pathParams = [...spec.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
    const params = pathParams.length
      ? z.object(
          Object.fromEntries(
            pathParams.map((p) => [
              p,
              z
                .string()
                .regex(/^[0-9a-f]{24}$/)
                .max(24)
                .meta({ description: 'Record id (24 lowercase hex)', example: '6740a1b2c3d4e5f601234567' }),
            ]),
          ),
        )
      : undefined;
    const statuses = new Set<number>([400, 401, 403, 429, 500, 503, ...(spec.errors ?? [])]);
    if (pathParams.length) statuses.add(404);
    if (spec.body || spec.upload) {
      statuses.add(413);
      statuses.add(415);
    }
    if (spec.method === 'post') statuses.add(409);
    const counted = this.headerRefs(COUNTED_HEADERS);
    const responses: RouteConfig['responses'] = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      responses[status] = {
        description: r.description,
        headers: responseHeaders({
          ...counted,
          ...(spec.method === 'post' && !spec.upload ? this.headerRefs(['Idempotent-Replayed']) : {}),
          ...ownHeaders(r.headers),
        }),
        content: r.schema
          ? Object.fromEntries([r.contentType ?? 'application/json'].flat().map((type) => [type, { schema: r.schema }]))
          : undefined,
      };
    }
    // send() answers a GET whose ETag matches If-None-Match with 304 and no body.
    const etag = spec.method === 'get' ? spec.responses[200]?.headers?.shape.ETag : undefined;
    if (etag) {
      responses['304'] = {
        description: 'Not modified: If-None-Match names the current ETag (no body)',
        headers: responseHeaders({ ...counted, ...ownHeaders(z.object({ ETag: etag })) }),
      };
    }
    for (const status of [...statuses].sort()) responses[String(status)] = this.errorResponseRef(status);
    let headers = spec.requestHeaders;
    // An upload's body is a stream the gateway does not keep: no Idempotency-Key (a retry uploads anew).
    if (spec.method === 'post' && !spec.upload)
      headers = (headers ?? z.object({})).extend({ 'idempotency-key': idempotencyKeyHeader });
    if (etag) headers = (headers ?? z.object({})).extend({ 'if-none-match': ifNoneMatchHeader });
    return {
      method: spec.method,
      path: `${this.base}${toOpenApiPath(spec.path)}`,
      operationId: spec.operationId,
      summary: spec.summary,
      description: `${spec.description ? `${spec.description}\n\n` : ''}${scopeNote(spec.scope)}`,
      tags: spec.tags,
      security: [{ [SECURITY_SCHEME]: spec.scope === 'authenticated' ? [] : [spec.scope] }],
      request: {
        params,
        query: spec.query ?? spec.listQuery,
        headers,
        // A body schema that also accepts no body (rotate's optional {}) makes the body optional.
        body: spec.body
          ? {
              required: !spec.body.safeParse(undefined).success,
              content: { 'application/json': { schema: spec.body } },
            }
          : spec.upload
            ? { required: true, content: { 'multipart/form-data': { schema: spec.upload } } }
            : undefined,
      },
      responses,
    };
  }
}
