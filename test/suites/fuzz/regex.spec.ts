import document from '../../../libs/api-client/openapi.json';
import { Prng } from './prng';
import { sampleMatching } from './regex';

/** Every `pattern` in a JSON value. */
function patternsOf(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => patternsOf(v, out));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (k === 'pattern' && typeof v === 'string') out.add(v);
      else patternsOf(v, out);
    }
  return out;
}

describe('sampleMatching', () => {
  it('draws strings that every pattern of the OpenAPI document matches', () => {
    const rng = Prng.of('regex');
    const patterns = [...patternsOf(document)];
    expect(patterns.length).toBeGreaterThan(40);
    for (const pattern of patterns) {
      const re = new RegExp(pattern, 'u');
      for (let i = 0; i < 30; i++) {
        const s = sampleMatching(pattern, rng);
        expect({ pattern, s, matches: re.test(s) }).toEqual({ pattern, s, matches: true });
      }
    }
  });

  it('reads classes, escapes, groups, alternatives and counted repeats', () => {
    const rng = Prng.of('syntax');
    expect(sampleMatching('^[0-9a-f]{24}$', rng)).toMatch(/^[0-9a-f]{24}$/);
    expect(sampleMatching('^(?:ab|cd){2}x?$', rng)).toMatch(/^(ab|cd){2}x?$/);
    expect(sampleMatching('^\\d{4}-\\d{2}$', rng)).toMatch(/^\d{4}-\d{2}$/);
    expect([...sampleMatching('^[^\\u0000-\\u007f]+$', rng)].every((c) => c.codePointAt(0)! > 0x7f)).toBe(true);
    expect(sampleMatching('^[\\x21-\\x7e]{1,3}$', rng)).toMatch(/^[\x21-\x7e]{1,3}$/);
  });

  it('refuses syntax it cannot generate rather than drawing wrong strings', () => {
    expect(() => sampleMatching('^(?=a)a$', Prng.of('x'))).toThrow(/lookarounds/);
    expect(() => sampleMatching('^a\\b$', Prng.of('x'))).toThrow(/word boundaries/);
  });
});
