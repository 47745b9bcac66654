import type { Response } from 'express';
import { RateLimitError, UnavailableError, ValidationError, type PimError } from '@pim/errors';
import { errorHandler, sendError } from './errors';

/** The headers, status and body sendError writes. */
function sent(err: PimError): { headers: Record<string, string>; status: number; body: Record<string, unknown> } {
  const out = { headers: {} as Record<string, string>, status: 0, body: {} as Record<string, unknown> };
  const res = {
    locals: { requestId: 'req-1' },
    setHeader: (name: string, value: string) => void (out.headers[name] = value),
    status(code: number) {
      out.status = code;
      return this;
    },
    type() {
      return this;
    },
    send(text: string) {
      out.body = JSON.parse(text) as Record<string, unknown>;
      return this;
    },
  };
  sendError(res as unknown as Response, err);
  return out;
}

describe('sendError', () => {
  it('always tells a 503 and a 429 when to retry, using the cause when it names a time', () => {
    expect(sent(new UnavailableError('webhooks is unavailable')).headers['Retry-After']).toBe('5');
    expect(sent(new UnavailableError('webhooks is unavailable', { retryAfter: 1 })).headers['Retry-After']).toBe('1');
    expect(sent(new RateLimitError('too many', { retryAfter: 41.2 })).headers['Retry-After']).toBe('42');
  });

  it('sends no Retry-After with other errors and writes the error object', () => {
    const r = sent(new ValidationError('bad'));
    expect(r.headers['Retry-After']).toBeUndefined();
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 400, name: 'ValidationError', request_id: 'req-1' });
  });
});

describe('errorHandler', () => {
  it("answers the router's refusal of malformed percent-encoding in the path as a 400, not a 500", () => {
    const out = { status: 0, body: {} as Record<string, unknown> };
    const res = {
      locals: { requestId: 'req-2' },
      headersSent: false,
      setHeader: () => undefined,
      status(code: number) {
        out.status = code;
        return this;
      },
      type() {
        return this;
      },
      send(text: string) {
        out.body = JSON.parse(text) as Record<string, unknown>;
        return this;
      },
    };
    const logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
    // What the router throws for GET /api/v1/brands/%ZZ.
    const err = Object.assign(new URIError("Failed to decode param '%ZZ'"), { status: 400 });
    errorHandler(logger as never)(err, { method: 'GET', path: '/api/v1/brands/%ZZ' } as never, res as never, () => {});
    expect(out.status).toBe(400);
    expect(out.body).toMatchObject({ code: 400, kind: 'validation', title: 'Malformed path', request_id: 'req-2' });
  });
});
