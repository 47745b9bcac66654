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
  fromErrorObject,
  withLinks,
  writtenErrorObject,
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

  it('cuts what quotes the caller to the documented lengths, so a huge input keeps the shape', () => {
    const long = 'x'.repeat(5000);
    const obj = new ValidationError(`'${long}' is not a valid id`, {
      title: long,
      solution: long,
      details: Array.from({ length: 1200 }, () => ({ field: long, message: long })),
    }).toObject('req-1');
    expect([obj.title.length, obj.message.length, obj.solution.length]).toEqual([200, 4000, 1000]);
    expect(obj.message.endsWith('…')).toBe(true);
    expect(obj.details).toHaveLength(1000);
    expect([obj.details![0].field.length, obj.details![0].message.length]).toEqual([200, 1000]);
    expect(new ValidationError('short').toObject().message).toBe('short');
  });

  it('never cuts between the two halves of a character', () => {
    const emoji = '😀'.repeat(2_500);
    const obj = new ValidationError(`Unrecognized key: "${emoji}"`, {
      details: [{ field: emoji, message: 'x' }],
    }).toObject();
    const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
    for (const text of [obj.message, obj.details![0].field]) {
      expect(lone.test(text)).toBe(false);
      expect(text.endsWith('😀…')).toBe(true);
    }
    expect(obj.details![0].field.length).toBeLessThanOrEqual(200);
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

describe('links: owners name API places, the gateway writes their paths', () => {
  const err = new ConflictError('The attribute group is still used by 2 live attributes', {
    ...withLinks((link) => `Remove it first (${link({ collection: 'attributes', query: { group_ids: 'g1' } })})`),
  });

  it('keeps the links unwritten on the wire and rebuilds them on the other side', () => {
    const wire = err.toWire();
    expect(wire.solution).toBe('Remove it first ({link:0})');
    expect(wire.links).toEqual([{ collection: 'attributes', query: { group_ids: 'g1' } }]);
    expect(fromErrorObject(wire).links).toEqual(wire.links);
  });

  it('writes plain names by default and the given writer when there is one', () => {
    expect(err.toObject().solution).toBe('Remove it first (GET attributes?group_ids=g1)');
    expect(err.toObject(undefined, (l) => `GET /x/${l.collection}`).solution).toBe(
      'Remove it first (GET /x/attributes)',
    );
    expect(err.toObject()).not.toHaveProperty('links');
  });

  it('leaves a token without a link as it is', () => {
    expect(writtenErrorObject({ ...err.toWire(), links: [] }).solution).toBe('Remove it first ({link:0})');
  });
});

describe('a store that cannot take the request now', () => {
  it('is a 503 with Retry-After, whether the code is on the error, its driver error or its cause', () => {
    const cases: unknown[] = [
      { code: '53300', message: 'sorry, too many clients already' },
      { code: '57P03', message: 'the database system is starting up' },
      { code: '08006', message: 'connection failure' },
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('query failed'), { driverError: { code: '57P01' } }),
      new Error('wrapped', { cause: new Error('timeout exceeded when trying to connect') }),
      new Error('Connection terminated unexpectedly'),
    ];
    for (const err of cases) {
      const pim = toPimError(err);
      expect(pim).toBeInstanceOf(UnavailableError);
      expect(pim.retryAfter).toBeGreaterThan(0);
    }
  });

  it('leaves what a retry cannot fix a 500', () => {
    for (const err of [{ code: '23505' }, { code: '42P01' }, new Error('boom'), { code: 'ENOENT' }, { code: 53300 }]) {
      expect(toPimError(err)).toBeInstanceOf(InternalError);
    }
  });
});
