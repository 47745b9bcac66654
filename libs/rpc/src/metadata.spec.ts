import { Metadata } from '@grpc/grpc-js';
import { ACTOR_KEY, contextToMetadata, metadataToContext } from './metadata';

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
});
