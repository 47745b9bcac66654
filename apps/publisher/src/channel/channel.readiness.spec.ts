import { readinessProblems } from './channel.readiness';

const channel = { code: 'shop', enabled: true, required_attributes: ['color', 'care'], language: 'pt-BR' };

describe('channel readiness', () => {
  it('is ready when every required attribute has a value (a translation in the channel language)', () => {
    expect(readinessProblems(channel, { attributes: { color: 'blue', care: { pt: 'Lavar' } } })).toEqual([]);
  });

  it('names each attribute that has no value, and a disabled channel', () => {
    expect(
      readinessProblems({ ...channel, enabled: false }, { attributes: { color: '  ', care: { en: 'Wash' } } }),
    ).toEqual([
      { field: 'enabled', message: "the channel 'shop' is disabled: nothing is published to it" },
      {
        field: 'attributes.color',
        message: "the channel 'shop' requires a value of 'color' (in pt-BR); the product has none",
      },
      {
        field: 'attributes.care',
        message: "the channel 'shop' requires a value of 'care' (in pt-BR); the product has none",
      },
    ]);
  });

  it('takes empty lists and objects as no value, false and 0 as values', () => {
    const c = { ...channel, language: undefined, required_attributes: ['a', 'b', 'c', 'd'] };
    expect(readinessProblems(c, { attributes: { a: [], b: {}, c: false, d: 0 } }).map((p) => p.field)).toEqual([
      'attributes.a',
      'attributes.b',
    ]);
  });
});
