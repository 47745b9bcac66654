import { connect } from 'node:net';
import { gatewayTestContext, type GatewayTestContext } from '../testing/gateway.context';

/** Sends raw bytes to the gateway and reads the whole answer until it closes the connection. */
function raw(base: string, bytes: string): Promise<{ status: number; headers: string; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), headers: head, body: rest.join('\r\n\r\n') });
    });
    socket.end(bytes);
  });
}

// What Node's HTTP parser refuses before express sees the request is answered with the error
// object too, like every other answer (a bodiless 431 or 400 otherwise).
describe('gateway: requests the HTTP parser refuses', () => {
  let ctx: GatewayTestContext;

  beforeAll(async () => {
    ctx = await gatewayTestContext();
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('answers a header section over the limit with a 431 error object', async () => {
    const r = await raw(ctx.base, `GET /api/v1/webhooks?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(r.status).toBe(431);
    expect(r.headers).toMatch(/content-type: application\/json/i);
    expect(JSON.parse(r.body)).toMatchObject({
      code: 431,
      kind: 'headers_too_large',
      name: 'HeadersTooLargeError',
      request_id: expect.any(String),
    });
    const big = await raw(ctx.base, `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`);
    expect(JSON.parse(big.body)).toMatchObject({ code: 431, solution: expect.stringContaining('16 KiB') });
  });

  it('answers a malformed request with a 400 error object', async () => {
    for (const bytes of ['NOT HTTP AT ALL\r\n\r\n', 'GET / HTTP/1.1\r\nBad Header\r\n\r\n']) {
      const r = await raw(ctx.base, bytes);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body)).toMatchObject({ code: 400, kind: 'validation', title: 'Malformed request' });
    }
  });

  it('answers what Node would leave bodiless or unanswered with the error object too', async () => {
    const auth = `Authorization: Bearer ${ctx.adminKey}\r\n`;
    const cases: [string, number][] = [
      // Node's own answer: a bodiless 400.
      [`GET /api/v1/webhooks HTTP/1.1\r\n${auth}\r\n`, 400],
      // The router cannot parse the target: it skipped every middleware and answered HTML.
      ['GET http://[::1 HTTP/1.1\r\nHost: x\r\n\r\n', 400],
      // No version (HTTP/0.9): Node ignores the Content-Length, so the body never came and the request timed out.
      [
        `PATCH /api/v1/webhooks/6740a1b2c3d4e5f601234567\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
        400,
      ],
      // Node dropped the connection without a word.
      ['CONNECT 127.0.0.1:80 HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n', 404],
    ];
    for (const [bytes, status] of cases) {
      const r = await raw(ctx.base, bytes);
      expect({ bytes, status: r.status }).toEqual({ bytes, status });
      expect(r.headers).toMatch(/content-type: application\/json/i);
      expect(JSON.parse(r.body)).toMatchObject({ code: status, request_id: expect.any(String) });
    }
  });

  it('serves a request with an expectation it does not know as if it had none (not a bodiless 417)', async () => {
    const r = await raw(ctx.base, 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: fuzz\r\nConnection: close\r\n\r\n');
    expect(r.status).toBe(200);
  });

  it('still serves a well-formed request on the same server', async () => {
    const r = await raw(ctx.base, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(r.status).toBe(200);
  });
});
