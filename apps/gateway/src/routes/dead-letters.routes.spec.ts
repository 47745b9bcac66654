import { ConflictError, NotFoundError, UnavailableError, ValidationError } from '@pim/errors';
import { parseListQuery } from '@pim/query';
import { DEAD_LETTER_APPS, deadLetterListDecl, type DeadLetterView } from '@pim/resources';
import { appsOf, comparator, failureOf } from './dead-letters.routes';

const limits = { maxLimit: 100, defaultLimit: 25 };
const query = (raw: Record<string, string>) => parseListQuery(deadLetterListDecl, raw, limits);

const letter = (over: Partial<DeadLetterView>): DeadLetterView => ({
  _id: '6740a1b2c3d4e5f601234567',
  app: 'catalog',
  source: 'outbox',
  event_id: '6740a1b2c3d4e5f601234500',
  event_type: 'products.updated',
  occurred_at: '2026-11-26T10:00:00.000Z',
  attempts: 10,
  last_error: 'NoRespondersError: no responders',
  size_bytes: 100,
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:00:00.000Z',
  ...over,
});

describe('the dead letters routes', () => {
  it('ask every app unless app filters say which', () => {
    expect(appsOf(query({}))).toEqual([...DEAD_LETTER_APPS]);
    expect(appsOf(query({ app: 'orders' }))).toEqual(['orders']);
    expect(appsOf(query({ app_in: 'webhooks,catalog' }))).toEqual(['catalog', 'webhooks']);
    expect(appsOf(query({ app_nin: 'catalog,webhooks' }))).toEqual(['workflow', 'orders', 'io-jobs', 'publisher']);
    expect(appsOf(query({ app_ne: 'catalog', app_in: 'catalog,orders' }))).toEqual(['orders']);
  });

  it('refuse an app that keeps no dead letters, naming those that do', () => {
    const err = (() => {
      try {
        appsOf(query({ app: 'gateway' }));
      } catch (e) {
        return e;
      }
    })() as ValidationError;
    expect(err).toBeInstanceOf(ValidationError);
    expect(err.message).toBe("'gateway' is not an app that keeps dead letters");
    expect(err.solution).toContain('catalog, workflow, orders, io-jobs, publisher, webhooks');
  });

  it('merge the apps’ pages in the list’s order, ties broken by _id', () => {
    const a = letter({ _id: '6740a1b2c3d4e5f60123456a', app: 'catalog', created_at: '2026-11-26T10:00:01.000Z' });
    const b = letter({ _id: '6740a1b2c3d4e5f60123456b', app: 'orders', created_at: '2026-11-26T10:00:03.000Z' });
    const c = letter({ _id: '6740a1b2c3d4e5f60123456c', app: 'orders', created_at: '2026-11-26T10:00:01.000Z' });
    expect([a, b, c].sort(comparator(query({}))).map((l) => l._id)).toEqual([b._id, c._id, a._id]);
    const fewest = [a, b, c].map((l, i) => ({ ...l, attempts: [3, 1, 2][i] }));
    expect(fewest.sort(comparator(query({ sort: 'attempts' }))).map((l) => l._id)).toEqual([b._id, c._id, a._id]);
  });

  it('let an app’s own answer stand, and name the apps that could not be reached', () => {
    const transport = new UnavailableError('orders is unavailable', { cause: new Error('14 UNAVAILABLE') });
    const answers = [
      { app: 'catalog' as const, result: { status: 'rejected' as const, reason: new NotFoundError('none') } },
      { app: 'orders' as const, result: { status: 'rejected' as const, reason: transport } },
    ];
    const down = failureOf(answers, 'to look for it', (e) => e instanceof NotFoundError);
    expect(down).toBeInstanceOf(UnavailableError);
    expect(down?.message).toBe('Could not reach the orders app to look for it');
    expect(down?.solution).toContain('app_nin=orders');

    const refused = new ConflictError('The event still fails');
    const withAnswer = [
      ...answers,
      { app: 'webhooks' as const, result: { status: 'rejected' as const, reason: refused } },
    ];
    expect(failureOf(withAnswer, 'to look for it', (e) => e instanceof NotFoundError)).toBe(refused);
    // The holder's own 503 (its replica does not run the consumer) is an answer, not an app down.
    const notHere = new UnavailableError('This replica does not run the consumer "fan-out"');
    expect(failureOf([{ app: 'webhooks', result: { status: 'rejected', reason: notHere } }], 'to look for it')).toBe(
      notHere,
    );
    expect(failureOf([{ app: 'catalog', result: { status: 'fulfilled', value: 1 } }], 'to list')).toBeUndefined();
  });
});
