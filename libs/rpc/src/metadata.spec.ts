import { Metadata } from '@grpc/grpc-js';
import { ACTOR_KEY, IDEMPOTENCY_TOKEN_KEY, callTokenOf, contextToMetadata, metadataToContext } from './metadata';

const fresh = () => 'fresh-id';

describe('request context in call metadata', () => {
  it('carries the actor and their product access across a call', () => {
    const access = { user_id: 'u1', all_products: false, groups: ['g1', 'g2'] };
    const md = contextToMetadata({ requestId: 'r1', actor: { user_id: 'u1', user_name: 'Ana Luísa', access } });
    expect(metadataToContext(md, fresh)).toEqual({
      requestId: 'r1',
      actor: { user_id: 'u1', user_name: 'Ana Luísa', access },
    });
  });

  it('reads no access as unrestricted', () => {
    const md = contextToMetadata({ requestId: 'r1', actor: { user_id: 'u1' } });
    expect(metadataToContext(md, fresh).actor?.access).toBeUndefined();
  });

  it('reads malformed access as access to no product, never as none', () => {
    for (const access of [
      { user_id: 'u1', all_products: true, groups: 'g1' },
      { all_products: true, groups: [] },
    ]) {
      const md = new Metadata();
      md.set(ACTOR_KEY, Buffer.from(JSON.stringify({ user_id: 'u1', access }), 'utf8'));
      expect(metadataToContext(md, fresh).actor?.access).toEqual(
        expect.objectContaining({ all_products: false, groups: [] }),
      );
    }
  });

  it('gives a call without a request id a fresh one', () => {
    expect(metadataToContext(new Metadata(), fresh)).toEqual({ requestId: 'fresh-id', actor: undefined });
  });

  describe('idempotency tokens', () => {
    const token = 'a'.repeat(64);
    const run = () => ({ requestId: 'r1', idempotency: { token, calls: new Map<string, number>() } });
    const tokensOf = (ctx: ReturnType<typeof run>, paths: string[]) =>
      paths.map((p) => callTokenOf(contextToMetadata(ctx, new Metadata(), p)));

    it('gives each call of a request its own token, the same on every run of the request', () => {
      const paths = ['/s.S/Create', '/s.S/Create', '/s.S/Get', '/s.T/Create'];
      const first = tokensOf(run(), paths);
      expect(new Set(first).size).toBe(4);
      expect(first.every((t) => /^[0-9a-f]{64}$/.test(t ?? ''))).toBe(true);
      expect(tokensOf(run(), paths)).toEqual(first);
    });

    it('sends none without a method, or for a request without a key', () => {
      expect(contextToMetadata(run()).get(IDEMPOTENCY_TOKEN_KEY)).toEqual([]);
      expect(contextToMetadata({ requestId: 'r1' }, new Metadata(), '/s.S/Create').get(IDEMPOTENCY_TOKEN_KEY)).toEqual(
        [],
      );
    });

    it('hands a received token on to the calls the callee makes, and ignores a malformed one', () => {
      const md = contextToMetadata(run(), new Metadata(), '/s.S/Create');
      const received = metadataToContext(md, fresh);
      expect(received.idempotency?.token).toBe(callTokenOf(md));
      const bad = new Metadata();
      bad.set(IDEMPOTENCY_TOKEN_KEY, 'not-a-token');
      expect(metadataToContext(bad, fresh).idempotency).toBeUndefined();
    });
  });
});
