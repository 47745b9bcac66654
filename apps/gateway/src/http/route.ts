import { Router, type Request, type Response } from 'express';
import { z, type ZodType } from 'zod';
import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { AuthenticationError, ValidationError, fromZodError } from '@pim/errors';
import { currentContext } from '@pim/logging';
import { errorResponse, errorResponseHeaders, errorResponseName } from '../openapi/errors';
import {
  COUNTED_HEADERS,
  SHARED_HEADERS,
  headerRef,
  ownHeaders,
  responseHeaders,
  sharedHeaderObject,
  type HeadersObject,
  type SharedHeader,
} from '../openapi/headers';
import { authorize, scopeNote, type Principal, type Scope } from '../auth/scopes';
import { requestHash, type IdempotencyService } from '../idempotency/idempotency.service';
import { jsonSchemaOf, parameterObject, parameterRef, type ParameterLocation } from '../openapi/parameters';
import { setRoute } from './metrics';
import { FILTER_VALUES, type ListQueryDoc } from './list';

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
  /**
   * Where links in answers start (a list's `nextUrl`): the configured public URL
   * (`https://pim.example.com`), else the origin the request came to (`http://localhost:8080`).
   */
  origin: string;
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
  listQuery?: ListQueryDoc;
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
      /**
       * A response without a body that several routes answer alike (`Deleted`): declared once under
       * components/responses by this name and referred to from each.
       */
      component?: string;
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

/** The id of a record in a path (`/webhooks/{id}`, `/attributes/{id}/options/{optionId}`). */
const recordIdParam = z
  .string()
  .regex(/^[0-9a-f]{24}$/)
  .max(24)
  .meta({ description: 'Record id (24 lowercase hex)', example: '6740a1b2c3d4e5f601234567' });

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
/** A 400 naming every query parameter an operation does not take (all of them when it takes none). */
function refuseUnknownParameters(query: Record<string, unknown>, taken: z.ZodObject | undefined): void {
  const allowed = taken ? Object.keys(taken.shape) : [];
  const unknown = Object.keys(query).filter((key) => !allowed.includes(key));
  if (unknown.length === 0) return;
  const names = unknown.map((k) => `'${k}'`).join(', ');
  throw new ValidationError(`Unknown query parameter${unknown.length > 1 ? 's' : ''} ${names}`, {
    title: 'Unknown query parameter',
    solution:
      allowed.length > 0
        ? `This operation takes only ${allowed.map((k) => `'${k}'`).join(', ')}; leave the others out`
        : 'This operation takes no query parameters; leave them out',
    details: unknown.map((field) => ({ field, message: 'is not a parameter of this operation' })),
  });
}

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
  /** Shared parameters and responses by component, with the object (as JSON) each stands for. */
  private readonly shared = new Map<string, string>();

  constructor(
    private readonly registry: OpenAPIRegistry,
    private readonly base: string,
    private readonly idempotency?: IdempotencyService,
    /** The gateway's public URL (PUBLIC_URL), which answers' links start with; else each request's own origin. */
    private readonly publicUrl?: string,
  ) {}

  /**
   * The methods the declared routes take on a path (`GET`, `PATCH`… for `/api/v1/brands/x`), HEAD
   * with GET as HTTP has it; empty when no route has the path.
   */
  allowedMethods(path: string): string[] {
    const segments = path.replace(/\/+$/, '').split('/');
    const methods = this.declared
      .filter((r) => {
        const pattern = r.path.split('/');
        return pattern.length === segments.length && pattern.every((p, i) => p.startsWith(':') || p === segments[i]);
      })
      .map((r) => r.method.toUpperCase());
    if (methods.includes('GET')) methods.push('HEAD');
    return [...new Set(methods)];
  }

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
      // Nothing is silently ignored: a parameter the operation does not take is a 400 (a list's
      // query is checked by the list language, which names the fields it filters on).
      if (!spec.listQuery) refuseUnknownParameters(query, spec.query);
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
      const origin = this.publicUrl ? this.publicUrl.replace(/\/+$/, '') : `${req.protocol}://${req.get('host')}`;
      const run = () =>
        spec.handler({
          params: req.params as Record<string, string>,
          query,
          body: body as never,
          headers: req.headers,
          path,
          origin,
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
  private component(type: 'headers' | 'responses' | 'schemas', name: string, build: () => unknown): void {
    const key = `${type}/${name}`;
    if (this.components.has(key)) return;
    this.components.add(key);
    this.registry.registerComponent(type, name, build() as never);
  }

  private headerRefs(names: readonly SharedHeader[]): Record<string, { $ref: string }> {
    for (const name of names) this.component('headers', name, () => sharedHeaderObject(name));
    return Object.fromEntries(names.map((name) => [name, headerRef(name)]));
  }

  /**
   * A parameter as a shared component (path ids, request headers, a list's paging): each is the
   * same wherever it appears, so operations refer to it. Two different parameters of one name fail.
   */
  private parameter(where: ParameterLocation, name: string, schema: ZodType): { $ref: string } {
    const object = parameterObject(name, where, schema);
    const text = JSON.stringify(object);
    const known = this.shared.get(`parameter ${name}`);
    if (known === undefined) {
      this.shared.set(`parameter ${name}`, text);
      this.registry.registerComponent('parameters', name, object as never);
    } else if (known !== text) {
      throw new Error(`Parameter '${name}' is declared twice, differently: give one of them another name`);
    }
    return parameterRef(name);
  }

  /** A shared response (no body) by name; two different responses of one name fail. */
  private sharedResponse(name: string, response: object): { $ref: string } {
    const text = JSON.stringify(response);
    const known = this.shared.get(`response ${name}`);
    if (known === undefined) {
      this.shared.set(`response ${name}`, text);
      this.component('responses', name, () => response);
    } else if (known !== text) {
      throw new Error(`Response '${name}' is declared twice, differently: give one of them another name`);
    }
    return { $ref: `#/components/responses/${name}` };
  }

  /** A route's own response headers; those the gateway shares (ETag, Location) as references. */
  private ownHeaderRefs(headers: z.ZodObject | undefined): HeadersObject {
    const own: HeadersObject = ownHeaders(headers);
    for (const [name, header] of Object.entries(own)) {
      if (!Object.hasOwn(SHARED_HEADERS, name)) continue;
      const shared = name as SharedHeader;
      if (JSON.stringify(header) === JSON.stringify(sharedHeaderObject(shared)))
        Object.assign(own, this.headerRefs([shared]));
    }
    return own;
  }

  /** The `filter` parameter of a list, with its schema and the value schemas it names. */
  private filterParameter(list: ListQueryDoc): Record<string, unknown> {
    const { id, schema } = list.filter;
    this.component('schemas', id, () => schema);
    for (const [, name] of JSON.stringify(schema).matchAll(/#\/components\/schemas\/(Filter\w+)/g)) {
      if (this.components.has(`schemas/${name}`)) continue;
      this.components.add(`schemas/${name}`);
      this.registry.registerComponent('schemas', name, jsonSchemaOf(FILTER_VALUES[name]) as never);
    }
    return {
      name: 'filter',
      in: 'query',
      description: 'Filters, each a query parameter of its own: `?enabled=true&created_at_gte=2026-01-01`',
      required: false,
      style: 'form',
      explode: true,
      schema: { $ref: `#/components/schemas/${id}` },
    };
  }

  private errorResponseRef(status: number): { $ref: string } {
    const name = errorResponseName(status);
    this.headerRefs(errorResponseHeaders(status));
    this.component('responses', name, () => errorResponse(status));
    return { $ref: `#/components/responses/${name}` };
  }

  private describe<B extends ZodType | undefined>(spec: RouteSpec<B>): RouteConfig {
    const pathParams = [...spec.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
    const parameters: unknown[] = pathParams.map((p) => this.parameter('path', p, recordIdParam));
    if (spec.listQuery) {
      for (const [name, schema] of Object.entries(spec.listQuery.paging))
        parameters.push(this.parameter('query', name, schema));
      parameters.push(this.filterParameter(spec.listQuery));
    }
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
      const response = {
        description: r.description,
        headers: responseHeaders({
          ...counted,
          ...(spec.method === 'post' && !spec.upload ? this.headerRefs(['Idempotent-Replayed']) : {}),
          ...this.ownHeaderRefs(r.headers),
        }),
        content: r.schema
          ? Object.fromEntries([r.contentType ?? 'application/json'].flat().map((type) => [type, { schema: r.schema }]))
          : undefined,
      };
      responses[status] = r.component && !r.schema ? this.sharedResponse(r.component, response) : response;
    }
    // send() answers a GET whose ETag matches If-None-Match with 304 and no body.
    const etag = spec.method === 'get' ? spec.responses[200]?.headers?.shape.ETag : undefined;
    if (etag) {
      responses['304'] = this.sharedResponse('NotModified', {
        description: 'Not modified: If-None-Match names the current ETag (no body)',
        headers: responseHeaders({ ...counted, ...this.ownHeaderRefs(z.object({ ETag: etag })) }),
      });
    }
    for (const status of [...statuses].sort()) responses[String(status)] = this.errorResponseRef(status);
    let headers = spec.requestHeaders;
    // An upload's body is a stream the gateway does not keep: no Idempotency-Key (a retry uploads anew).
    if (spec.method === 'post' && !spec.upload)
      headers = (headers ?? z.object({})).extend({ 'idempotency-key': idempotencyKeyHeader });
    if (etag) headers = (headers ?? z.object({})).extend({ 'if-none-match': ifNoneMatchHeader });
    for (const [name, schema] of Object.entries(headers?.shape ?? {}))
      parameters.push(this.parameter('header', name, schema as ZodType));
    return {
      method: spec.method,
      path: `${this.base}${toOpenApiPath(spec.path)}`,
      operationId: spec.operationId,
      summary: spec.summary,
      description: `${spec.description ? `${spec.description}\n\n` : ''}${scopeNote(spec.scope)}`,
      tags: spec.tags,
      security: [{ [SECURITY_SCHEME]: spec.scope === 'authenticated' ? [] : [spec.scope] }],
      ...(parameters.length > 0 ? { parameters: parameters as RouteConfig['parameters'] } : {}),
      request: {
        query: spec.query ?? spec.listQuery?.query,
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
