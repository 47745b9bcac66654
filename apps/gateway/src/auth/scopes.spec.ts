import { allows, authorize, grantableScopes, isGrantableScope } from './scopes';

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
    expect(() => authorize({ keyId: 'k', prefix: 'p', scopes: ['webhooks:read'] }, 'webhooks:write')).toThrow(
      expect.objectContaining({ status: 403, message: expect.stringContaining('webhooks:write') }),
    );
  });
});
