import { parseRawResponse, requestIdOf, retryDelayMs, sendRetrying, type FuzzResponse } from './http';
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

  it('names each case in the X-Request-Id the gateway takes, echoes and logs', () => {
    expect(requestIdOf('cafe1234', 17)).toBe('fz-cafe1234-17');
    expect(requestIdOf('cafe1234', 49_999)).toMatch(/^[A-Za-z0-9._:-]{1,128}$/);
  });
});

describe('a 503 with Retry-After', () => {
  const answer = (status: number, headers: Record<string, string> = {}): FuzzResponse => ({
    status,
    headers,
    body: Buffer.from('{}'),
    ms: 1,
  });

  it('waits what Retry-After says (seconds or a date, at most 10 s), and only after a 503', () => {
    const now = Date.parse('2026-11-26T10:00:00Z');
    expect(retryDelayMs(answer(503, { 'retry-after': '2' }), now)).toBe(2_000);
    expect(retryDelayMs(answer(503, { 'retry-after': 'Thu, 26 Nov 2026 10:00:03 GMT' }), now)).toBe(3_000);
    expect(retryDelayMs(answer(503, { 'retry-after': 'Thu, 26 Nov 2026 09:00:00 GMT' }), now)).toBe(0);
    expect(retryDelayMs(answer(503, { 'retry-after': '3600' }), now)).toBe(10_000);
    expect(retryDelayMs(answer(503, { 'retry-after': 'soon' }), now)).toBe(1_000);
    expect(retryDelayMs(answer(503), now)).toBeUndefined();
    expect(retryDelayMs(answer(429, { 'retry-after': '2' }), now)).toBeUndefined();
    expect(retryDelayMs(answer(500, { 'retry-after': '2' }), now)).toBeUndefined();
  });

  it('is sent once more after the wait, and a second 503 stands', async () => {
    const run = async (...statuses: number[]) => {
      const sent: number[] = [];
      const waits: number[] = [];
      const out = await sendRetrying(
        async () => {
          const status = statuses[sent.length];
          sent.push(status);
          return answer(status, status === 503 ? { 'retry-after': '1' } : {});
        },
        async (ms) => {
          waits.push(ms);
        },
      );
      return { status: out.res.status, retried: out.first?.status, sent: sent.length, waits };
    };
    expect(await run(503, 201)).toEqual({ status: 201, retried: 503, sent: 2, waits: [1_000] });
    expect(await run(503, 503, 201)).toEqual({ status: 503, retried: 503, sent: 2, waits: [1_000] });
    expect(await run(400)).toEqual({ status: 400, retried: undefined, sent: 1, waits: [] });
  });

  it('is not retried without Retry-After', async () => {
    let sent = 0;
    const out = await sendRetrying(async () => {
      sent++;
      return answer(503);
    });
    expect({ status: out.res.status, sent }).toEqual({ status: 503, sent: 1 });
  });
});
