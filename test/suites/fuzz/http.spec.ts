import { parseRawResponse } from './http';
import { encode, paramText } from './params';

describe('reading a raw answer and writing parameters', () => {
  it('reads the status, headers and body of the first answer', () => {
    const r = parseRawResponse(
      Buffer.from(
        'HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}extra',
      ),
    );
    expect(r).toMatchObject({ status: 431, headers: { 'content-type': 'application/json' } });
    expect(r.body.toString()).toBe('{}');
    expect(
      parseRawResponse(Buffer.from('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n'))
        .status,
    ).toBe(404);
    expect(parseRawResponse(Buffer.from('HTTP/1.1 200 O')).status).toBe(0);
    expect(parseRawResponse(Buffer.from('garbage\r\n\r\n'))).toMatchObject({ status: 0, error: expect.any(String) });
  });

  it('percent-encodes parameters, lone surrogates as their invalid UTF-8 bytes', () => {
    expect(encode('a b/é')).toBe('a%20b%2F%C3%A9');
    expect(encode('x\ud800')).toBe('x%ED%A0%80');
    expect(paramText([1, true, 'x'])).toBe('1,true,x');
    expect(paramText({ a: 1 })).toBe('{"a":1}');
  });
});
