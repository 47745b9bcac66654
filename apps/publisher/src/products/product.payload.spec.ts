import { buildPayload, contentHash, inLanguage, sourceValue } from './product.payload';

const product = {
  _id: '6740a1b2c3d4e5f601234567',
  code: 'SKU-1',
  name: { 'pt-BR': 'Camisa', en: 'Shirt' },
  brand_id: '6740a1b2c3d4e5f601234568',
  attributes: {
    color: 'blue',
    price: { amount: 19.9, currency: 'BRL' },
    care: { 'pt-BR': 'Lavar à mão', en: 'Hand wash' },
  },
  published: false,
  version: 3,
  updated_at: '2026-11-01T10:00:00.000Z',
};

describe('publication payload', () => {
  it('fills each mapped field from the snapshot, translated values in the channel language', () => {
    const payload = buildPayload(
      {
        language: 'pt-BR',
        mapping: [
          { field: 'title', source: 'name' },
          { field: 'sku', source: 'code' },
          { field: 'offer.price', source: 'attributes.price.amount' },
          { field: 'offer.currency', source: 'attributes.price.currency' },
          { field: 'care', source: 'attributes.care' },
          { field: 'missing', source: 'attributes.size' },
        ],
      },
      product,
    );
    expect(payload).toEqual({
      title: 'Camisa',
      sku: 'SKU-1',
      offer: { price: 19.9, currency: 'BRL' },
      care: 'Lavar à mão',
    });
  });

  it('sends the whole snapshot when the channel maps nothing', () => {
    expect(buildPayload({ language: null, mapping: [] }, product)).toBe(product);
  });

  it('finds a language of the same family, and keeps a translation whole without a channel language', () => {
    expect(inLanguage({ pt: 'Camisa', en: 'Shirt' }, 'pt-BR')).toBe('Camisa');
    expect(inLanguage({ 'en-US': 'Shirt' }, 'en')).toBe('Shirt');
    expect(inLanguage({ en: 'Shirt' }, 'es')).toBeUndefined();
    expect(sourceValue(product, 'name', null)).toEqual(product.name);
  });

  it('fingerprints what the product is, not its version or where it is published', () => {
    const same = { ...product, version: 4, published: true, publishments: [{ channel: 'x' }], updated_at: 'later' };
    const reordered = Object.fromEntries(Object.entries(product).reverse());
    expect(contentHash(same)).toBe(contentHash(product));
    expect(contentHash(reordered)).toBe(contentHash(product));
    expect(contentHash({ ...product, code: 'SKU-2' })).not.toBe(contentHash(product));
    expect(contentHash({ ...product, attributes: { ...product.attributes, color: 'red' } })).not.toBe(
      contentHash(product),
    );
  });
});
