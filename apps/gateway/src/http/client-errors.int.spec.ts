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

  it('still serves a well-formed request on the same server', async () => {
    const r = await raw(ctx.base, 'GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(r.status).toBe(200);
  });
});
