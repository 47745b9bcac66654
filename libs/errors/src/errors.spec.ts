import { Metadata, status } from '@grpc/grpc-js';
import { z } from 'zod';
import {
  ConflictError,
  InternalError,
  NotFoundError,
  UnavailableError,
  ValidationError,
  fromGrpcError,
  fromZodError,
  toGrpcError,
  toPimError,
  ERROR_METADATA_KEY,
} from './index';

describe('error objects', () => {
  it('carries the interface fields and the request id', () => {
    const err = new ValidationError('name.pt must be a string', {
      details: [{ field: 'name.pt', message: 'expected string' }],
    });
    expect(err.toObject('req-1')).toEqual({
      code: 400,
      kind: 'validation',
      name: 'ValidationError',
      title: 'Invalid request',
      message: 'name.pt must be a string',
      solution: expect.any(String),
      details: [{ field: 'name.pt', message: 'expected string' }],
      request_id: 'req-1',
    });
  });

  it('turns unknown throwables into an InternalError without leaking their message', () => {
    const pim = toPimError(new Error('relation "x" does not exist'));
    expect(pim).toBeInstanceOf(InternalError);
    expect(pim.message).not.toContain('relation');
    expect(pim.logLevel).toBe('error');
  });
});

describe('gRPC mapping', () => {
  it('round-trips a domain error through status + metadata', () => {
    const sent = toGrpcError(new ConflictError('collection "products" already has a webhook', { title: 'Taken' }));
    expect(sent.code).toBe(status.ALREADY_EXISTS);
    const back = fromGrpcError(sent);
    expect(back).toBeInstanceOf(ConflictError);
    expect(back.message).toBe('collection "products" already has a webhook');
    expect(back.title).toBe('Taken');
  });

  it('keeps non-ASCII messages intact', () => {
    const back = fromGrpcError(toGrpcError(new NotFoundError('produto «Café» não existe')));
    expect(back.message).toBe('produto «Café» não existe');
  });

  it('maps transport failures to 503 naming the service', () => {
    const back = fromGrpcError({ code: status.UNAVAILABLE, metadata: new Metadata() }, 'webhooks');
    expect(back).toBeInstanceOf(UnavailableError);
    expect(back.status).toBe(503);
    expect(back.message).toBe('webhooks is unavailable');
    expect(back.retryAfter).toBeGreaterThan(0);
  });

  it('treats a corrupt error payload as internal', () => {
    const md = new Metadata();
    md.set(ERROR_METADATA_KEY, Buffer.from('{not json'));
    expect(fromGrpcError({ code: status.UNKNOWN, metadata: md })).toBeInstanceOf(InternalError);
  });
});

describe('zod mapping', () => {
  it('lists every problem, unknown fields included', () => {
    const schema = z.strictObject({ url: z.string(), enabled: z.boolean() });
    const r = schema.safeParse({ url: 3, enabled: 'yes', colour: 'red' });
    const err = fromZodError(r.error!);
    expect(err.status).toBe(400);
    expect(err.details!.map((d) => d.field).sort()).toEqual(['colour', 'enabled', 'url']);
    expect(err.details!.find((d) => d.field === 'colour')!.message).toBe('is not a known field');
    expect(err.message).toContain('url');
  });
});
