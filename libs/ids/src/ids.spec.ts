import { idTimestamp, isId, newId, requireId } from './index';

describe('ids', () => {
  it('are 24 lowercase hex characters', () => {
    const id = newId();
    expect(id).toMatch(/^[0-9a-f]{24}$/);
    expect(isId(id)).toBe(true);
  });

  it('are unique and time-ordered', () => {
    const ids = Array.from({ length: 1000 }, () => newId());
    expect(new Set(ids).size).toBe(1000);
    expect([...ids].sort()).toEqual(ids);
    expect(Math.abs(idTimestamp(ids[0]).getTime() - Date.now())).toBeLessThan(5000);
  });

  it('rejects other shapes', () => {
    for (const bad of ['', 'abc', 'G'.repeat(24), 'A'.repeat(24), 12, null, undefined, '0'.repeat(25)]) {
      expect(isId(bad)).toBe(false);
    }
  });
});

describe('requireId', () => {
  it('returns a good id and refuses a bad one with a 400 naming the resource', () => {
    const id = newId();
    expect(requireId(id, 'webhook')).toBe(id);
    expect(() => requireId('nope', 'webhook')).toThrow(
      expect.objectContaining({ status: 400, solution: expect.stringContaining('webhook') }),
    );
  });
});
