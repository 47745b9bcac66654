import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from './unreachable-store';
import { plainLinkWriter, writeLinks, type ApiLink, type LinkWriter } from './links';

/** A field-level problem inside an error object. */
export interface ErrorDetail {
  field: string;
  message: string;
}

/** The interface's error object (docs/platform/rules.md: attribute types, errors). */
export interface ErrorObject {
  code: number;
  kind: ErrorKind;
  name: string;
  title: string;
  message: string;
  solution: string;
  details?: ErrorDetail[];
  request_id?: string;
}

/** Every `kind` the platform answers with. */
export type ErrorKind =
  | 'validation'
  | 'authentication'
  | 'authorization'
  | 'not_found'
  | 'method_not_allowed'
  | 'conflict'
  | 'precondition'
  | 'gone'
  | 'payload_too_large'
  | 'headers_too_large'
  | 'request_timeout'
  | 'unsupported_media_type'
  | 'rate_limit'
  | 'internal'
  | 'unavailable';

/** How loudly an error is logged: client mistakes are info, clashes warn, our faults error. */
export type ErrorLogLevel = 'info' | 'warn' | 'error';

/** Options common to every domain error. */
export interface PimErrorOptions {
  title?: string;
  solution?: string;
  details?: ErrorDetail[];
  cause?: unknown;
  /** Seconds a caller should wait before retrying (429, 503). */
  retryAfter?: number;
  /** API places the message and solution point to as `{link:N}` (see `withLinks`); the gateway writes their paths. */
  links?: ApiLink[];
}

/** The error object as it crosses between apps: message and solution with their `{link:N}` tokens, and the links. */
export interface WireErrorObject extends ErrorObject {
  links?: ApiLink[];
}

/**
 * The longest each member of the error object may be (the OpenAPI `Error` schema declares them):
 * messages that quote what the caller sent (a 5,000-character id, an unknown field's name) are
 * cut to fit, so every error object keeps the documented shape.
 */
export const ERROR_OBJECT_LIMITS = {
  title: 200,
  message: 4000,
  solution: 1000,
  details: 1000,
  detailField: 200,
  detailMessage: 1000,
} as const;

/**
 * A string cut to `max` characters (the last one an ellipsis) when longer, never between the two
 * halves of a character (an emoji): half of one is not text.
 */
function fit(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = isHighSurrogate(text.charCodeAt(max - 2)) ? max - 2 : max - 1;
  return `${text.slice(0, end)}…`;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** The error object a wire object stands for, its links written by `write` (the gateway's paths, else plain names). */
export function writtenErrorObject(wire: WireErrorObject, write: LinkWriter = plainLinkWriter): ErrorObject {
  const { links, ...obj } = wire;
  const L = ERROR_OBJECT_LIMITS;
  const out: ErrorObject = {
    ...obj,
    title: fit(obj.title, L.title),
    message: fit(writeLinks(obj.message, links, write), L.message),
    solution: fit(writeLinks(obj.solution, links, write), L.solution),
  };
  if (obj.details)
    out.details = obj.details.slice(0, L.details).map((d) => ({
      field: fit(d.field, L.detailField),
      message: fit(d.message, L.detailMessage),
    }));
  return out;
}

/** Base of the closed set of errors that domain code throws. */
export abstract class PimError extends Error {
  abstract readonly status: number;
  abstract readonly kind: ErrorKind;
  abstract readonly logLevel: ErrorLogLevel;
  protected abstract readonly defaultTitle: string;
  protected abstract readonly defaultSolution: string;
  readonly details?: ErrorDetail[];
  readonly retryAfter?: number;
  readonly links?: ApiLink[];
  private readonly customTitle?: string;
  private readonly customSolution?: string;

  constructor(message: string, options: PimErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.customTitle = options.title;
    this.customSolution = options.solution;
    this.details = options.details;
    this.retryAfter = options.retryAfter;
    this.links = options.links;
  }

  get title(): string {
    return this.customTitle ?? this.defaultTitle;
  }

  /** The solution as text, its links written as plain names (`GET attributes?group_ids=…`); the gateway writes paths. */
  get solution(): string {
    return writeLinks(this.rawSolution, this.links, plainLinkWriter);
  }

  /** The solution with its `{link:N}` tokens, as it crosses to another app. */
  private get rawSolution(): string {
    return this.customSolution ?? this.defaultSolution;
  }

  /** The error object as the API shows it, its links written by `writeLink` (the gateway's paths, else plain names). */
  toObject(requestId?: string, writeLink: LinkWriter = plainLinkWriter): ErrorObject {
    const obj = writtenErrorObject(this.toWire(), writeLink);
    if (requestId) obj.request_id = requestId;
    return obj;
  }

  /** The error object with its links unwritten, for another app (the gateway) to write them. */
  toWire(): WireErrorObject {
    const obj: WireErrorObject = {
      code: this.status,
      kind: this.kind,
      name: this.name,
      title: this.title,
      message: this.message,
      solution: this.rawSolution,
    };
    if (this.details && this.details.length > 0) obj.details = this.details;
    if (this.links && this.links.length > 0) obj.links = this.links;
    return obj;
  }
}

/** 400: bad body, query, filter, type, unknown field. */
export class ValidationError extends PimError {
  override readonly name = 'ValidationError';
  readonly status = 400;
  readonly kind = 'validation' as const;
  readonly logLevel = 'info' as const;
  protected readonly defaultTitle = 'Invalid request';
  protected readonly defaultSolution = 'Correct the fields named in details and send the request again';
}

/** 401: missing or bad credentials. */
export class AuthenticationError extends PimError {
  override readonly name = 'AuthenticationError';
  readonly status = 401;
  readonly kind = 'authentication' as const;
  readonly logLevel = 'info' as const;
  protected readonly defaultTitle = 'Authentication required';
  protected readonly defaultSolution = 'Send a valid API key as "Authorization: Bearer <key>"';
}

/** 403: authenticated but not allowed. */
export class AuthorizationError extends PimError {
  override readonly name = 'AuthorizationError';
  readonly status = 403;
  readonly kind = 'authorization' as const;
  readonly logLevel = 'info' as const;
  protected readonly defaultTitle = 'Not allowed';
  protected readonly defaultSolution = 'Use an API key that carries the scope this route needs';
}

/** 404: no such record (or it was deleted). */
export class NotFoundError extends PimError {
  override readonly name = 'NotFoundError';
  readonly status = 404;
  readonly kind = 'not_found' as const;
  readonly logLevel = 'info' as const;
  protected readonly defaultTitle = 'Not found';
  protected readonly defaultSolution = 'Check the id; deleted records are no longer served';
}

/** 409: unique key taken, transition not allowed, idempotency clash. */
export class ConflictError extends PimError {
  override readonly name = 'ConflictError';
  readonly status = 409;
  readonly kind = 'conflict' as const;
  readonly logLevel = 'warn' as const;
  protected readonly defaultTitle = 'Conflict with the current state';
  protected readonly defaultSolution = 'Read the current record and retry with values that do not clash';
}

/** 412: If-Match did not hold. */
export class PreconditionFailedError extends PimError {
  override readonly name = 'PreconditionFailedError';
  readonly status = 412;
  readonly kind = 'precondition' as const;
  readonly logLevel = 'info' as const;
  protected readonly defaultTitle = 'Precondition failed';
  protected readonly defaultSolution = 'Read the record again and retry with its current ETag in If-Match';
}

/** 410: the record is there but what was asked of it is gone for good (an export's file past its retention). */
export class GoneError extends PimError {
  override readonly name = 'GoneError';
  readonly status = 410;
  readonly kind = 'gone' as const;
  readonly logLevel = 'info' as const;
  protected readonly defaultTitle = 'Gone';
  protected readonly defaultSolution = 'It is no longer kept; create it again';
}

/**
 * 405: the path exists, but not for this method. `allow` lists the methods it takes, which the
 * answer's Allow header names.
 */
export class MethodNotAllowedError extends PimError {
  override readonly name = 'MethodNotAllowedError';
  readonly status = 405;
  readonly kind = 'method_not_allowed' as const;
  readonly logLevel = 'info' as const;
  protected readonly defaultTitle = 'Method not allowed';
  protected readonly defaultSolution = 'Use one of the methods in the Allow header';
  allow: string[] = [];
}

/** 413: body over the limit. */
export class PayloadTooLargeError extends PimError {
  override readonly name = 'PayloadTooLargeError';
  readonly status = 413;
  readonly kind = 'payload_too_large' as const;
  readonly logLevel = 'info' as const;
  protected readonly defaultTitle = 'Payload too large';
  protected readonly defaultSolution = 'Send a smaller body, or split the work into several requests';
}

/** 431: the request line or headers are larger than the server reads (refused before any route). */
export class HeadersTooLargeError extends PimError {
  override readonly name = 'HeadersTooLargeError';
  readonly status = 431;
  readonly kind = 'headers_too_large' as const;
  readonly logLevel = 'info' as const;
  protected readonly defaultTitle = 'Request headers too large';
  protected readonly defaultSolution =
    'Send a shorter URL and fewer or smaller headers (at most 16 KiB for the request line and headers together)';
}

/** 408: the request did not arrive in time (its headers or body came too slowly). */
export class RequestTimeoutError extends PimError {
  override readonly name = 'RequestTimeoutError';
  readonly status = 408;
  readonly kind = 'request_timeout' as const;
  readonly logLevel = 'info' as const;
  protected readonly defaultTitle = 'Request timeout';
  protected readonly defaultSolution = 'Send the whole request without pauses, then retry';
}

/** 415: not JSON. */
export class UnsupportedMediaTypeError extends PimError {
  override readonly name = 'UnsupportedMediaTypeError';
  readonly status = 415;
  readonly kind = 'unsupported_media_type' as const;
  readonly logLevel = 'info' as const;
  protected readonly defaultTitle = 'Unsupported media type';
  protected readonly defaultSolution = 'Send the body as JSON with "Content-Type: application/json"';
}

/** 429: too many requests. */
export class RateLimitError extends PimError {
  override readonly name = 'RateLimitError';
  readonly status = 429;
  readonly kind = 'rate_limit' as const;
  readonly logLevel = 'info' as const;
  protected readonly defaultTitle = 'Too many requests';
  protected readonly defaultSolution = 'Wait for the number of seconds in Retry-After, then retry';
}

/** 500: our fault. Never carries a stack or SQL to the caller. */
export class InternalError extends PimError {
  override readonly name = 'InternalError';
  readonly status = 500;
  readonly kind = 'internal' as const;
  readonly logLevel = 'error' as const;
  protected readonly defaultTitle = 'Internal error';
  protected readonly defaultSolution = 'Retry later; if it persists, report the request_id to the operator';
}

/** 503: a dependency is down. */
export class UnavailableError extends PimError {
  override readonly name = 'UnavailableError';
  readonly status = 503;
  readonly kind = 'unavailable' as const;
  readonly logLevel = 'warn' as const;
  protected readonly defaultTitle = 'Service unavailable';
  protected readonly defaultSolution = 'Retry after the number of seconds in Retry-After';
}

/** The concrete classes, by name, to rebuild an error that crossed a process boundary. */
export const errorClasses = {
  ValidationError,
  AuthenticationError,
  AuthorizationError,
  NotFoundError,
  MethodNotAllowedError,
  ConflictError,
  PreconditionFailedError,
  GoneError,
  PayloadTooLargeError,
  HeadersTooLargeError,
  RequestTimeoutError,
  UnsupportedMediaTypeError,
  RateLimitError,
  InternalError,
  UnavailableError,
} as const;

/** Name of one concrete error class. */
export type ErrorName = keyof typeof errorClasses;

/**
 * Any thrown value as a PimError: a store that cannot take the request now (too many connections, a
 * server restarting, a broken connection) is an UnavailableError with Retry-After; other unknown
 * errors become an InternalError with the original as cause.
 */
export function toPimError(err: unknown): PimError {
  if (err instanceof PimError) return err;
  if (isStoreUnavailable(err)) {
    return new UnavailableError('The database cannot take this request right now', {
      retryAfter: STORE_RETRY_AFTER_SECONDS,
      title: 'Database busy or unreachable',
      solution: 'Retry after the number of seconds in Retry-After (a write with the same Idempotency-Key)',
      cause: err,
    });
  }
  return new InternalError('An unexpected error occurred', { cause: err });
}

/** Rebuilds a PimError from its error object (after it crossed gRPC), links included. */
export function fromErrorObject(obj: WireErrorObject, retryAfter?: number): PimError {
  const Cls = (errorClasses as Record<string, new (m: string, o?: PimErrorOptions) => PimError>)[obj.name];
  const options: PimErrorOptions = {
    title: obj.title,
    solution: obj.solution,
    details: obj.details,
    retryAfter,
    links: obj.links,
  };
  if (Cls) return new Cls(obj.message, options);
  return new InternalError(obj.message, options);
}

/**
 * The same error with its details' fields named under `prefix` (`attributes.cost` →
 * `filters.attributes.cost`): for an owner passing on another app's refusal of a value it keeps in
 * one of its own fields, so the caller is pointed at the field they sent.
 */
export function underField(err: PimError, prefix: string): PimError {
  const wire = err.toWire();
  if (!wire.details) return err;
  return fromErrorObject(
    { ...wire, details: wire.details.map((d) => ({ ...d, field: `${prefix}.${d.field}` })) },
    err.retryAfter,
  );
}
