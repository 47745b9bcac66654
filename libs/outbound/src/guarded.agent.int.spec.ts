import type { LookupAddress } from 'node:dns';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request, type Agent } from 'undici';
import { AddressPolicy, parseAllowList } from './address.policy';
import { BLOCKED_CODE, BlockedTargetError, createGuardedAgent, isBlockedError } from './guarded.agent';

interface TestReceiver {
  port: number;
  /** Paths of the requests received, in order. */
  requests: string[];
  close(): Promise<void>;
}

/** An HTTP receiver on a free 127.0.0.1 port that answers 200 and records each request's path. */
async function startReceiver(): Promise<TestReceiver> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests.push(req.url ?? '');
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

// A resolver the test controls: the DNS-rebinding case without a DNS server.
function fakeResolver(table: Record<string, string[]>) {
  const calls: string[] = [];
  const lookup = ((hostname: string, _opts: unknown, cb: (err: Error | null, addresses: LookupAddress[]) => void) => {
    calls.push(hostname);
    const list = table[hostname];
    if (!list) return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    cb(
      null,
      list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );
  }) as never;
  return { lookup, calls };
}

const post = (agent: Agent, url: string) =>
  request(url, { method: 'POST', body: '{}', dispatcher: agent, signal: AbortSignal.timeout(5_000) });

describe('SSRF guard on the outbound agent (real sockets on loopback)', () => {
  let receiver: TestReceiver;

  beforeAll(async () => {
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await receiver.close();
  });

  it('with the allowance off, refuses metadata, private and IPv4-mapped loopback targets before connecting', async () => {
    const agent = createGuardedAgent({ policy: new AddressPolicy() });
    try {
      for (const url of [
        'http://169.254.169.254/latest/meta-data/',
        'http://10.0.0.1/',
        `http://[::ffff:127.0.0.1]:${receiver.port}/hook`,
        `http://127.0.0.1:${receiver.port}/hook`,
      ]) {
        const err = await post(agent, url).then(
          () => null,
          (e: unknown) => e,
        );
        expect({ url, blocked: isBlockedError(err) }).toEqual({ url, blocked: true });
      }
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  it('resolves names and refuses one whose addresses include a private one (no rebinding gap)', async () => {
    const dns = fakeResolver({
      'rebind.test': ['10.0.0.1'],
      'mixed.test': ['93.184.216.34', '127.0.0.1'],
      'loopback.test': ['127.0.0.1'],
    });
    const agent = createGuardedAgent({ policy: new AddressPolicy(), lookup: dns.lookup });
    try {
      for (const host of ['rebind.test', 'mixed.test', 'loopback.test']) {
        const err = await post(agent, `http://${host}:${receiver.port}/hook`).catch((e: unknown) => e);
        expect({ host, blocked: isBlockedError(err) }).toEqual({ host, blocked: true });
      }
      expect(dns.calls).toEqual(expect.arrayContaining(['rebind.test', 'mixed.test', 'loopback.test']));
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await agent.close();
    }
  });

  it('with the allowance for loopback, reaches the local receiver by literal, mapped form and name', async () => {
    const dns = fakeResolver({ 'receiver.test': ['127.0.0.1'] });
    const agent = createGuardedAgent({
      policy: new AddressPolicy(parseAllowList('127.0.0.0/8,::1/128')),
      lookup: dns.lookup,
    });
    try {
      for (const url of [
        `http://127.0.0.1:${receiver.port}/hook`,
        `http://[::ffff:127.0.0.1]:${receiver.port}/hook`,
        `http://receiver.test:${receiver.port}/hook`,
      ]) {
        const res = await post(agent, url);
        await res.body.text();
        expect({ url, status: res.statusCode }).toEqual({ url, status: 200 });
      }
      expect(receiver.requests).toHaveLength(3);
      // Still nothing else: the allowance names loopback only.
      const err = await post(agent, 'http://10.0.0.1/').catch((e: unknown) => e);
      expect(isBlockedError(err)).toBe(true);
    } finally {
      await agent.close();
    }
  });

  it('names the refused address and range in the error', async () => {
    const agent = createGuardedAgent({ policy: new AddressPolicy() });
    try {
      const err = await post(agent, 'http://169.254.169.254/').catch((e: unknown) => e);
      let e: unknown = err;
      while (e && !(e instanceof BlockedTargetError)) e = (e as { cause?: unknown }).cause;
      expect(e).toBeInstanceOf(BlockedTargetError);
      expect((e as Error).message).toContain('169.254.169.254 is a link-local address');
      expect((e as BlockedTargetError).code).toBe(BLOCKED_CODE);
      expect(BLOCKED_CODE).toBe('ERR_OUTBOUND_TARGET_BLOCKED');
    } finally {
      await agent.close();
    }
  });
});
