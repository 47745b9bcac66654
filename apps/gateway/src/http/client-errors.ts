import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { RequestHandler } from 'express';
import { HeadersTooLargeError, NotFoundError, RequestTimeoutError, ValidationError, type PimError } from '@pim/errors';
import type { Logger } from '@pim/logging';

/** What Node's HTTP parser refused, as the error the caller gets (undefined: nothing to answer). */
export function clientErrorOf(err: NodeJS.ErrnoException): PimError | undefined {
  switch (err.code) {
    case 'ECONNRESET':
    case 'EPIPE':
      return undefined; // the caller is gone
    case 'HPE_HEADER_OVERFLOW':
      return new HeadersTooLargeError('The request line and headers are larger than 16 KiB');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'HPE_HEADERS_TIMEOUT':
      return new RequestTimeoutError('The request did not arrive in time');
    default:
      return malformedRequest('The request is not valid HTTP/1.1');
  }
}

/** The 400 of a request that is not well-formed HTTP/1.1. */
function malformedRequest(message: string): PimError {
  return new ValidationError(message, {
    title: 'Malformed request',
    solution:
      'Send a well-formed HTTP/1.1 request: a request line, a Host header, headers without control characters, and a body that matches its Content-Length or chunked encoding',
  });
}

/** Writes an error object straight to a socket express never saw, then closes it. */
function answerOnSocket(socket: Duplex, error: PimError, logger: Logger, code?: string): void {
  const requestId = randomUUID();
  logger.info({ request_id: requestId, code, status: error.status }, 'request refused by the HTTP parser');
  const body = JSON.stringify(error.toObject(requestId));
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
  );
}

/** Requests whose target the router cannot parse (`GET http://[::1 HTTP/1.1`), set aside for `refuseMalformed`. */
const unparsable = new WeakSet<IncomingMessage>();

/**
 * Whether express's router can read the request's target: an origin-form path always; any other
 * form (an absolute URL, `*`) only when it parses as a URL — the router skips every middleware
 * and answers HTML for one it cannot read (`http://[::1`).
 */
const routable = (req: IncomingMessage): boolean => (req.url ?? '').startsWith('/') || URL.canParse(req.url ?? '');

/**
 * Refuses, with the error object, what Node passes on but no route should serve: a request line
 * without a version (HTTP/0.9: Node ignores its Content-Length, so its body never comes and the
 * request would wait for the time-out), an HTTP/1.1 request without Host (Node's own answer to it
 * is a bodiless 400, so the server leaves it to this), and a target the router cannot parse.
 */
export function refuseMalformed(): RequestHandler {
  return (req, _res, next) => {
    if (unparsable.has(req)) return next(malformedRequest('The request target is not a valid path or URL'));
    if (req.httpVersionMajor !== 1) return next(malformedRequest(`HTTP/${req.httpVersion} is not supported`));
    if (req.httpVersionMinor === 1 && req.headers.host === undefined)
      return next(malformedRequest('An HTTP/1.1 request needs a Host header'));
    next();
  };
}

/**
 * Answers what Node refuses before express sees the request (a header section over the limit, a
 * malformed request line, a request that came too slowly) with the error object, like every
 * other answer, instead of Node's bodiless 400/431; then closes the connection. Also answers a
 * CONNECT (which Node would drop unanswered) as a route that does not exist, serves a request
 * with an `Expect` other than 100-continue as if it had none (RFC 9110 lets a server ignore an
 * expectation it does not know; Node's own answer is a bodiless 417), and leaves Host-less and
 * unroutable requests to `refuseMalformed`.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
  // Node's option, read on every request (its types name it only as a constructor option).
  (server as Server & { requireHostHeader: boolean }).requireHostHeader = false;
  server.prependListener('request', (req: IncomingMessage) => {
    if (routable(req)) return;
    unparsable.add(req);
    req.url = '/';
  });
  server.on('checkExpectation', (req, res) => server.emit('request', req, res));
  server.on('connect', (req: IncomingMessage, socket: Duplex) =>
    answerOnSocket(
      socket,
      new NotFoundError(`No route for CONNECT ${String(req.url).slice(0, 200)}`, {
        title: 'Route not found',
        solution: 'See the API reference at /docs for the available routes',
      }),
      logger,
    ),
  );
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Duplex) => {
    const error = clientErrorOf(err);
    if (
      !error ||
      !socket.writable ||
      (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent
    ) {
      socket.destroy();
      return;
    }
    answerOnSocket(socket, error, logger, err.code);
  });
}
