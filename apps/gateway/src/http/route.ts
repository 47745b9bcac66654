import { Router, type Request, type Response } from 'express';
import { z, type ZodType } from 'zod';
import type { OpenAPIRegistry, RouteConfig } from '@asteasolutions/zod-to-openapi';
import { ValidationError, fromZodError } from '@pim/errors';
import { ERROR_DESCRIPTIONS, errorObjectSchema } from '../openapi/errors';

/** What a route handler returns; the route writes it. */
export interface RouteResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** What a route handler receives: validated params and body, the raw query, the request id. */
export interface RouteInput<B> {
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: B;
  headers: Request['headers'];
  path: string;
}

/** One REST route: its HTTP binding, its OpenAPI description and its handler, declared together. */
export interface RouteSpec<B extends ZodType | undefined = undefined> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  /** Express path under the API base, e.g. `/webhooks/:id`. */
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** Schema of the JSON body, when the route takes one. */
  body?: B;
  /** Extra OpenAPI query parameters (lists describe their filters here). */
  query?: z.ZodObject;
  /** Request headers the route reads (If-Match...). */
  requestHeaders?: z.ZodObject;
  responses: Record<number, { description: string; schema?: ZodType; headers?: z.ZodObject }>;
  /** Error statuses this route can answer besides 400/500/503. */
  errors?: number[];
  handler: (input: RouteInput<B extends ZodType ? z.infer<B> : undefined>) => Promise<RouteResult>;
}

const toOpenApiPath = (p: string) => p.replace(/:([A-Za-z_]+)/g, '{$1}');

/** A router whose every route is also registered in the OpenAPI document. */
export class Api {
  readonly router = Router();

  constructor(private readonly registry: OpenAPIRegistry, private readonly base: string) {}

  /** Declares a route once: express handler + OpenAPI operation. */
  route<B extends ZodType | undefined = undefined>(spec: RouteSpec<B>): void {
    this.registry.registerPath(this.describe(spec));
    this.router[spec.method](spec.path, async (req: Request, res: Response) => {
      let body: unknown = undefined;
      if (spec.body) {
        if (req.body === undefined) {
          throw new ValidationError('This request needs a JSON body', {
            title: 'Missing body',
            solution: 'Send a JSON object with "Content-Type: application/json"',
          });
        }
        const parsed = spec.body.safeParse(req.body);
        if (!parsed.success) throw fromZodError(parsed.error);
        body = parsed.data;
      }
      const result = await spec.handler({
        params: req.params as Record<string, string>,
        query: req.query as Record<string, unknown>,
        body: body as never,
        headers: req.headers,
        path: `${this.base}${req.path}`,
      });
      for (const [k, v] of Object.entries(result.headers ?? {})) res.setHeader(k, v);
      if (result.body === undefined) res.status(result.status).end();
      else res.status(result.status).json(result.body);
    });
  }

  private describe<B extends ZodType | undefined>(spec: RouteSpec<B>): RouteConfig {
    const pathParams = [...spec.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]);
    const params = pathParams.length
      ? z.object(Object.fromEntries(pathParams.map((p) => [p, z.string().regex(/^[0-9a-f]{24}$/).max(24).meta({ description: 'Record id (24 lowercase hex)', example: '6740a1b2c3d4e5f601234567' })])))
      : undefined;
    const statuses = new Set<number>([400, 500, 503, ...(spec.errors ?? [])]);
    if (pathParams.length) statuses.add(404);
    if (spec.body) {
      statuses.add(413);
      statuses.add(415);
    }
    const responses: RouteConfig['responses'] = {};
    for (const [status, r] of Object.entries(spec.responses)) {
      responses[status] = {
        description: r.description,
        headers: r.headers,
        content: r.schema ? { 'application/json': { schema: r.schema } } : undefined,
      };
    }
    for (const status of [...statuses].sort()) {
      responses[String(status)] = { description: ERROR_DESCRIPTIONS[status] ?? 'Error', content: { 'application/json': { schema: errorObjectSchema } } };
    }
    return {
      method: spec.method,
      path: `${this.base}${toOpenApiPath(spec.path)}`,
      operationId: spec.operationId,
      summary: spec.summary,
      description: spec.description,
      tags: spec.tags,
      request: {
        params,
        query: spec.query,
        headers: spec.requestHeaders,
        body: spec.body ? { required: true, content: { 'application/json': { schema: spec.body } } } : undefined,
      },
      responses,
    };
  }
}
