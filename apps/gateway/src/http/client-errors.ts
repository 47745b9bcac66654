import { randomUUID } from 'node:crypto';
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { HeadersTooLargeError, RequestTimeoutError, ValidationError, type PimError } from '@pim/errors';
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
      return new ValidationError('The request is not valid HTTP/1.1', {
        title: 'Malformed request',
        solution:
          'Send a well-formed HTTP/1.1 request: a request line, headers without control characters, and a body that matches its Content-Length or chunked encoding',
      });
  }
}

/**
 * Answers what Node refuses before express sees the request (a header section over the limit, a
 * malformed request line, a request that came too slowly) with the error object, like every
 * other answer, instead of Node's bodiless 400/431; then closes the connection.
 */
export function answerClientErrors(server: Server, logger: Logger): void {
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
    const requestId = randomUUID();
    logger.info({ request_id: requestId, code: err.code, status: error.status }, 'request refused by the HTTP parser');
    const body = JSON.stringify(error.toObject(requestId));
    socket.end(
      `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Request-Id: ${requestId}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });
}
