import { connect } from 'node:net';
import { gatewayTestContext, type GatewayTestContext } from './testing/gateway.context';

// The gateway's own time-out: a request it cannot answer in time is its side's fault (503), unless
// the caller has not even sent the body it announced (408, and the connection is not kept).
describe('gateway: a request not answered in time', () => {
  let ctx: GatewayTestContext;

  beforeAll(async () => {
    ctx = await gatewayTestContext({ requestTimeoutMs: 300 });
  });

  afterAll(async () => {
    await ctx?.close();
  });

  it('answers 408, not 503, when the body announced never all arrives', async () => {
    const { hostname, port } = new URL(ctx.base);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname);
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
      // Ten bytes announced, two sent, and the connection left open.
      socket.write(
        `PUT /api/v1/webhooks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${ctx.adminKey}\r\n` +
          'Content-Type: application/json\r\nContent-Length: 10\r\n\r\n{"',
      );
    });
    const [head, body] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 408 /);
    expect(head).toMatch(/connection: close/i);
    expect(JSON.parse(body)).toMatchObject({ code: 408, kind: 'request_timeout', name: 'RequestTimeoutError' });
  });
});
