import type { NatsConnection } from '@nats-io/transport-node';
import { createLogger } from '@pim/logging';
import { EventConsumer, isPostgresDataError } from './event.consumer';

describe('isPostgresDataError', () => {
  it('is true for SQLSTATE class 22, on the error or on its driverError', () => {
    expect(isPostgresDataError(Object.assign(new Error('x'), { code: '22P05' }))).toBe(true);
    expect(isPostgresDataError({ driverError: { code: '22021' } })).toBe(true);
  });

  it('is false for anything else', () => {
    for (const err of [
      Object.assign(new Error('x'), { code: '40001' }),
      { code: 'ECONNREFUSED' },
      { code: 22 },
      new Error('x'),
      null,
      undefined,
      'text',
    ])
      expect(isPostgresDataError(err)).toBe(false);
  });
});

describe('EventConsumer options', () => {
  const base = {
    nc: {} as NatsConnection,
    stream: 'S',
    durable: 'd',
    logger: createLogger({ service: 'test', level: 'silent' }),
    name: 'test',
    handle: async () => undefined,
  };

  it('needs a filter subject', () => {
    expect(() => new EventConsumer({ ...base, filterSubjects: [] })).toThrow(/filter subject/);
  });

  it('needs maxDeliver to be a positive integer when given', () => {
    expect(() => new EventConsumer({ ...base, filterSubjects: ['pim.>'], maxDeliver: 0 })).toThrow(/maxDeliver/);
    expect(() => new EventConsumer({ ...base, filterSubjects: ['pim.>'], maxDeliver: 1.5 })).toThrow(/maxDeliver/);
    expect(() => new EventConsumer({ ...base, filterSubjects: ['pim.>'], maxDeliver: 3 })).not.toThrow();
  });
});
