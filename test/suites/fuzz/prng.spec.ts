import { Prng, newSeed } from './prng';

describe('Prng', () => {
  it('gives the same sequence for the same seed and stream, another for another', () => {
    const take = (p: Prng) => Array.from({ length: 5 }, () => p.next());
    expect(take(Prng.of('abc', 'case', 1))).toEqual(take(Prng.of('abc', 'case', 1)));
    expect(take(Prng.of('abc', 'case', 1))).not.toEqual(take(Prng.of('abc', 'case', 2)));
    expect(take(Prng.of('abc'))).not.toEqual(take(Prng.of('abd')));
  });

  it('keeps its draws inside their bounds', () => {
    const p = Prng.of('bounds');
    for (let i = 0; i < 1_000; i++) {
      const n = p.next();
      expect(n >= 0 && n < 1).toBe(true);
      const k = p.int(-2, 3);
      expect(Number.isInteger(k) && k >= -2 && k <= 3).toBe(true);
    }
    expect(new Set(Array.from({ length: 200 }, () => p.int(0, 3)))).toEqual(new Set([0, 1, 2, 3]));
  });

  it('picks by weight, shuffles without losing items, and makes short hex seeds', () => {
    const p = Prng.of('weights');
    const counts = { a: 0, b: 0 };
    for (let i = 0; i < 2_000; i++)
      counts[
        p.weighted([
          ['a', 9],
          ['b', 1],
        ] as const)
      ]++;
    expect(counts.a).toBeGreaterThan(counts.b * 5);
    expect(p.shuffle([1, 2, 3, 4, 5]).sort()).toEqual([1, 2, 3, 4, 5]);
    expect(p.string('xy', 4)).toMatch(/^[xy]{4}$/);
    expect(newSeed()).toMatch(/^[0-9a-f]{8}$/);
  });
});
