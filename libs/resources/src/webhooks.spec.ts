import { validateHeaderValue } from 'node:http';
import { Channel } from './channel';
import { HEADER_VALUE, Webhook, refusedHeaderCharacter } from './webhooks';

/** Whether Node's HTTP client sends a header with this value. */
function nodeSends(value: string): boolean {
  try {
    validateHeaderValue('x-test', value);
    return true;
  } catch {
    return false;
  }
}

const webhook = (headers: { key: string; value: string }[]) =>
  Webhook.schemas.input.safeParse({ collection: 'products', url: 'https://example.com/hook', headers });
const channel = (headers: { key: string; value: string }[]) =>
  Channel.schemas.input.safeParse({
    code: 'shop',
    name: 'Shop',
    endpoint: { url: 'https://shop.example.com/listings', headers },
  });
const issues = (r: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  (r.error?.issues ?? []).map((i) => ({ field: i.path.join('.'), message: i.message }));

// A header value the HTTP client refuses fails every delivery and publication at send time (a
// network error, retried for hours): such values are refused when the webhook or channel is written.
describe('header values of webhooks and channels', () => {
  it('accept exactly what Node and undici send: every character to U+0FFF, then a sample to U+10FFFF', () => {
    for (let code = 0; code <= 0x10ffff; code += code < 0x1000 ? 1 : 97) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const value = `a${String.fromCodePoint(code)}b`;
      if (HEADER_VALUE.test(value) !== nodeSends(value)) throw new Error(`U+${code.toString(16)} differs from Node`);
    }
    expect(HEADER_VALUE.test('')).toBe(nodeSends(''));
  });

  it.each([
    ['CR', 'Bearer abc\rX-Injected: 1', 'a carriage return (CR) at position 11'],
    ['LF', 'Bearer abc\nX-Injected: 1', 'a line feed (LF) at position 11'],
    ['CRLF', 'abc\r\n', 'a carriage return (CR) at position 4'],
    ['NUL', 'abc\u0000', 'a NUL character at position 4'],
    ['another control character', '\u0007', 'the character U+0007 at position 1'],
    ['DEL', 'x\u007f', 'the character U+007F at position 2'],
    ['a character past U+00FF', 'café–bar', 'the character U+2013 at position 5'],
    ['an emoji', '🙂', 'the character U+1F642 at position 1'],
  ])('refuse %s with a 400 naming the header', (_what, value, words) => {
    expect(refusedHeaderCharacter(value)).toBe(words);
    const headers = [
      { key: 'X-Ok', value: 'fine' },
      { key: 'X-Other', value: 'fine too' },
      { key: 'Authorization', value },
    ];
    const message = expect.stringContaining(`value of header 'Authorization' holds ${words}, `);
    expect(issues(webhook(headers))).toEqual([{ field: 'headers.2.value', message }]);
    expect(issues(channel(headers))).toEqual([{ field: 'endpoint.headers.2.value', message }]);
  });

  it('take tab, spaces, printable ASCII and Latin-1', () => {
    const headers = [
      { key: 'Authorization', value: 'Bearer k3y\t with spaces' },
      { key: 'X-Latin', value: 'café ÿ' },
      { key: 'X-Empty', value: '' },
    ];
    expect(webhook(headers).success).toBe(true);
    expect(channel(headers).success).toBe(true);
  });

  it('keep the checks of header names', () => {
    expect(issues(webhook([{ key: 'Bad Name', value: 'v' }]))).toEqual([
      { field: 'headers.0.key', message: 'key must be a valid HTTP header name' },
    ]);
    expect(issues(channel([{ key: 'Host', value: 'v' }])).map((i) => i.field)).toEqual(['endpoint.headers.0.key']);
  });
});
