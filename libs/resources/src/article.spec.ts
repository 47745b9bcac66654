import { indefiniteArticle, withArticle } from './article';

describe('indefinite article of a route summary', () => {
  it('is "an" before a vowel sound', () => {
    for (const phrase of [
      'attribute',
      'attribute group',
      'attribute option',
      'import',
      'import template',
      'export',
      'order',
    ])
      expect(`${phrase}: ${indefiniteArticle(phrase)}`).toBe(`${phrase}: an`);
  });

  it('is "a" before a consonant sound, also when the word starts with a vowel letter', () => {
    for (const phrase of [
      'brand',
      'product',
      'users group',
      'user',
      'unique code',
      'URL',
      'UUID',
      'one-time key',
      'webhook',
    ])
      expect(`${phrase}: ${indefiniteArticle(phrase)}`).toBe(`${phrase}: a`);
  });

  it('reads an abbreviation by its letters and skips a silent h', () => {
    expect(['API key', 'SKU', 'HTTP header', 'hour', 'honest answer', 'HTML page'].map(withArticle)).toEqual([
      'an API key',
      'an SKU',
      'an HTTP header',
      'an hour',
      'an honest answer',
      'an HTML page',
    ]);
  });

  it('reads a field name by its letters, past a leading underscore', () => {
    expect(['_id', 'code', 'collection', 'key', 'value'].map(withArticle)).toEqual([
      'an _id',
      'a code',
      'a collection',
      'a key',
      'a value',
    ]);
  });
});
