import { Webhook } from 'standardwebhooks';
import { buildEnvelope } from '@pim/events';
import { newSigningSecret } from '../webhook/webhook.service';
import { buildHeaders, buildPayload, outcomeOf } from './delivery.sender';
import { sign, signatureHeader } from './signature';

const envelope = buildEnvelope({
  id: '6740a1b2c3d4e5f601234567',
  source: 'catalog',
  collection: 'products',
  action: 'updated',
  data: { _id: '6740a1b2c3d4e5f601234568', code: 'SKU-1', name: { en: 'Chair' } },
  occurredAt: new Date('2026-11-22T16:15:43.123Z'),
});

describe('Standard Webhooks signing', () => {
  it('produces headers the official library accepts, for the exact body sent', () => {
    const secret = newSigningSecret();
    const body = buildPayload(envelope, [{ key: 'store', value: 'br-01' }]);
    const ts = Math.floor(Date.now() / 1000);
    const headers = buildHeaders(
      { eventId: envelope.id, headers: [{ key: 'X-Api-Key', value: 'k' }], secrets: [secret] },
      body,
      ts,
    );
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'x-api-key': 'k',
      'webhook-id': envelope.id,
      'webhook-timestamp': String(ts),
    });
    expect(new Webhook(secret).verify(body, headers)).toEqual({
      type: 'products.updated',
      timestamp: '2026-11-22T16:15:43.123Z',
      schema_version: 1,
      data: envelope.data,
      store: 'br-01',
    });
    expect(headers['webhook-signature']).toBe(new Webhook(secret).sign(envelope.id, new Date(ts * 1000), body));
  });

  it('is rejected by the library for a tampered body, a stale timestamp or another secret', () => {
    const secret = newSigningSecret();
    const body = buildPayload(envelope, []);
    const fresh = Math.floor(Date.now() / 1000);
    const headers = buildHeaders({ eventId: envelope.id, headers: [], secrets: [secret] }, body, fresh);
    expect(() => new Webhook(secret).verify(body.replace('Chair', 'Table'), headers)).toThrow();
    const stale = fresh - 6 * 60;
    const staleHeaders = buildHeaders({ eventId: envelope.id, headers: [], secrets: [secret] }, body, stale);
    expect(() => new Webhook(secret).verify(body, staleHeaders)).toThrow(/too old/i);
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow();
  });

  it('signs with both secrets during a rotation overlap, and either verifies', () => {
    const [next, previous] = [newSigningSecret(), newSigningSecret()];
    const ts = Math.floor(Date.now() / 1000);
    const header = signatureHeader([next, previous], envelope.id, ts, '{}');
    expect(header.split(' ')).toEqual([sign(next, envelope.id, ts, '{}'), sign(previous, envelope.id, ts, '{}')]);
    const headers = { 'webhook-id': envelope.id, 'webhook-timestamp': String(ts), 'webhook-signature': header };
    expect(() => new Webhook(next).verify('{}', headers)).not.toThrow();
    expect(() => new Webhook(previous).verify('{}', headers)).not.toThrow();
  });

  it('keeps the payload keys and the platform headers from being replaced by the webhook', () => {
    const body = JSON.parse(
      buildPayload(envelope, [
        { key: 'type', value: 'x' },
        { key: 'data', value: 'y' },
        { key: 'schema_version', value: '9' },
        { key: 'extra', value: 'z' },
      ]),
    );
    expect(body).toEqual({
      type: 'products.updated',
      timestamp: envelope.occurred_at,
      schema_version: 1,
      data: envelope.data,
      extra: 'z',
    });
    const headers = buildHeaders(
      {
        eventId: envelope.id,
        headers: [
          { key: 'Webhook-Id', value: 'forged' },
          { key: 'Content-Type', value: 'text/plain' },
        ],
        secrets: [newSigningSecret()],
      },
      '{}',
      1,
    );
    expect(headers['webhook-id']).toBe(envelope.id);
    expect(headers['content-type']).toBe('application/json');
  });

  it('delivers body pairs and headers named like members of Object.prototype as data', () => {
    const pairs = ['constructor', 'toString', 'hasOwnProperty', '__proto__'].map((key) => ({ key, value: key[0] }));
    const body = buildPayload(envelope, pairs);
    // JSON.parse keeps every key as an own member, `__proto__` included (a pair kept from before it was refused).
    expect(Object.entries(JSON.parse(body) as object).slice(4)).toEqual(pairs.map((p) => [p.key, p.value]));
    const headers = buildHeaders(
      { eventId: envelope.id, headers: [{ key: '__proto__', value: 'p' }], secrets: [newSigningSecret()] },
      body,
      1,
    );
    expect(Object.keys(headers)).toContain('__proto__');
    expect(headers['__proto__']).toBe('p');
  });

  it('classifies status codes: 2xx success, 410 gone, 429/503 rate limited, the rest (3xx included) failures', () => {
    expect([200, 204, 299].map(outcomeOf)).toEqual(['success', 'success', 'success']);
    expect(outcomeOf(410)).toBe('gone');
    expect([429, 503].map(outcomeOf)).toEqual(['rate_limited', 'rate_limited']);
    expect([301, 302, 307, 400, 404, 500, 502].map(outcomeOf)).toEqual(Array(7).fill('http_error'));
  });
});
