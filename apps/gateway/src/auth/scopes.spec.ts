import { allows, authorize, grantableScopes, isGrantableScope, isRestricted, scopeNote } from './scopes';

describe('scopes', () => {
  it('admin allows everything; write implies read; read does not imply write', () => {
    expect(allows(['admin'], 'webhooks:write')).toBe(true);
    expect(allows(['webhooks:write'], 'webhooks:read')).toBe(true);
    expect(allows(['webhooks:read'], 'webhooks:write')).toBe(false);
    expect(allows(['products:write'], 'webhooks:read')).toBe(false);
    expect(allows([], 'authenticated')).toBe(true);
    expect(allows(['webhooks:write'], 'admin')).toBe(false);
  });

  it('grants only known collections and admin', () => {
    expect(isGrantableScope('webhooks:read')).toBe(true);
    expect(isGrantableScope('admin')).toBe(true);
    expect(isGrantableScope('nope:read')).toBe(false);
    expect(isGrantableScope('webhooks:delete')).toBe(false);
    expect(grantableScopes()).toContain('products:write');
  });

  it('answers a missing scope with a 403 that names it', () => {
    expect(() =>
      authorize({ keyId: 'k', prefix: 'p', scopes: ['webhooks:read'], key_name: 'k' }, 'webhooks:write'),
    ).toThrow(expect.objectContaining({ status: 403, message: expect.stringContaining('webhooks:write') }));
  });

  it('honours the webhooks scopes only on an unrestricted key: admin, or bound to no user', () => {
    const key = (scopes: string[], user_id?: string) => ({ keyId: 'k', prefix: 'p', scopes, user_id, key_name: 'k' });
    const USER = '6740a1b2c3d4e5f601234567';
    for (const needed of ['webhooks:write', 'webhooks:read'] as const) {
      expect(() => authorize(key(['webhooks:write'], USER), needed)).toThrow(
        expect.objectContaining({
          status: 403,
          title: 'Not allowed for a user’s key',
          message: expect.stringContaining('webhooks are platform-wide configuration'),
          solution: expect.stringContaining("'admin'"),
        }),
      );
      expect(() => authorize(key(['webhooks:write']), needed)).not.toThrow();
      expect(() => authorize(key(['admin'], USER), needed)).not.toThrow();
      expect(() => authorize(key(['webhooks:write', 'admin'], USER), needed)).not.toThrow();
    }
    // Other collections follow the users groups, not this rule.
    expect(() => authorize(key(['products:write'], USER), 'products:write')).not.toThrow();
    expect(isRestricted(key(['products:write'], USER))).toBe(true);
    expect(isRestricted(key(['products:write'], ''))).toBe(false);
  });

  it('says so in the operation description', () => {
    expect(scopeNote('products:write')).toBe('Needs scope `products:write` (or `admin`).');
    expect(scopeNote('admin')).toBe('Needs scope `admin`.');
    expect(scopeNote('webhooks:write')).toMatch(
      /^Needs scope `webhooks:write` \(or `admin`\) on an unrestricted key: .* Webhooks are platform-wide configuration: .* A key bound to a user without `admin` gets 403, even with the scope\.$/,
    );
  });
});
