import document from '../../../libs/api-client/openapi.json';
import { BODY_MUTATIONS, REMOVE, duplicateKeys, malformedJson, nestedText, setAt, slotsOf } from './mutations';
import { Prng } from './prng';
import { resolverOf, validate, type Schema } from './schema';

const resolve = resolverOf(document as unknown as { components: { schemas: Record<string, Schema> } });
const brand: Schema = { $ref: '#/components/schemas/BrandInput' };
const body = { code: 'cups', name: { en: 'Cups' }, enabled: true, tags: ['a'] };

describe('body mutations', () => {
  it('finds every place of a body with its schema, and replaces or removes one without touching the original', () => {
    const slots = slotsOf(body, brand, resolve);
    expect(slots.map((s) => s.path.join('.'))).toEqual(['', 'code', 'name', 'name.en', 'enabled', 'tags', 'tags.0']);
    expect(slots.find((s) => s.path.join('.') === 'code')?.schema?.maxLength).toBe(100);
    expect(setAt(body, ['name', 'en'], 'Xícaras')).toEqual({ ...body, name: { en: 'Xícaras' } });
    expect(setAt(body, ['tags', 0], REMOVE)).toEqual({ ...body, tags: [] });
    expect(body.tags).toEqual(['a']);
  });

  it('makes a valid body invalid in the way each one names, deterministically', () => {
    expect(validate(brand, body, resolve)).toEqual([]);
    const without: string[] = [];
    for (const [name, mutate] of Object.entries(BODY_MUTATIONS)) {
      const a = mutate(body, brand, Prng.of('m', name), resolve);
      expect(a).toEqual(mutate(body, brand, Prng.of('m', name), resolve));
      if (a) expect(a.note).toEqual(expect.any(String));
      else without.push(name);
    }
    // A brand has no enum and no number: those mutations say so, and the case falls back to another.
    expect(without.sort()).toEqual(['huge-number', 'invalid-enum', 'negative-number']);
    const missing = BODY_MUTATIONS['missing-required'](body, brand, Prng.of('x'), resolve)!;
    expect(validate(brand, missing.body, resolve)).toEqual([expect.stringMatching(/lacks (code|name)/)]);
    const nul = BODY_MUTATIONS['nul-char']({ code: 'ab' }, brand, Prng.of('x'), resolve)!;
    expect(JSON.stringify(nul.body)).toContain('\\u0000');
    const deep = BODY_MUTATIONS['deep-nesting'](body, brand, Prng.of('d'), resolve)!;
    expect(deep.text!.length).toBeGreaterThan(60);
    expect(() => JSON.parse(deep.text!)).not.toThrow();
  });

  it('writes nesting, broken JSON and repeated keys as text', () => {
    expect(nestedText(3, 'array')).toBe('[[[1]]]');
    expect(nestedText(2, 'object')).toBe('{"a":{"a":1}}');
    for (let i = 0; i < 50; i++) {
      const { text } = malformedJson(JSON.stringify(body), Prng.of('j', i));
      expect(() => JSON.parse(text)).toThrow();
    }
    const dup = duplicateKeys({ code: 'a' }, Prng.of('k'))!;
    expect(dup.text).toMatch(/^\{"code":"a","code":.+\}$/);
  });
});
