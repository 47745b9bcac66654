import { QueryFailedError } from 'typeorm';
import { isDeadlock } from './pg-errors';

describe('isDeadlock', () => {
  it('tells a transaction Postgres failed to break a deadlock, raw or wrapped by TypeORM', () => {
    const raw = Object.assign(new Error('deadlock detected'), { code: '40P01' });
    expect(isDeadlock(raw)).toBe(true);
    expect(isDeadlock(new QueryFailedError('UPDATE x', [], raw))).toBe(true);
    expect(isDeadlock(Object.assign(new Error('duplicate'), { code: '23505' }))).toBe(false);
    expect(isDeadlock(undefined)).toBe(false);
  });
});
