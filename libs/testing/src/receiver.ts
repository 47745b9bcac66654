import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a test receiver got. */
export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body (what a signature covers). */
  body: string;
  /** Arrival time (ms since epoch). */
  at: number;
}

/** What the receiver answers to the n-th request (from 1). */
export interface ReceiverAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering. */
  delayMs?: number;
}

/** An HTTP receiver on 127.0.0.1 that records every request and answers as the test says. */
export interface TestReceiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Replaces the answer rule (default: 200 "ok"). */
  answer(rule: (req: ReceivedRequest, n: number) => ReceiverAnswer): void;
  /** Resolves once `count` requests arrived (polls; fails after timeoutMs). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedRequest[]>;
  close(): Promise<void>;
}

/** Starts a receiver on a free loopback port. */
export async function startReceiver(path = '/hook'): Promise<TestReceiver> {
  const requests: ReceivedRequest[] = [];
  let rule: (req: ReceivedRequest, n: number) => ReceiverAnswer = () => ({ status: 200, body: 'ok' });
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      requests.push(got);
      const a = rule(got, requests.length);
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(a.status, a.headers ?? {}).end(a.body ?? '');
      };
      if (a.delayMs) setTimeout(send, a.delayMs);
      else send();
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    port,
    requests,
    answer(r) {
      rule = r;
    },
    async waitFor(count, timeoutMs = 15_000) {
      const until = Date.now() + timeoutMs;
      while (requests.length < count) {
        if (Date.now() > until)
          throw new Error(`receiver got ${requests.length} of ${count} requests in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 20));
      }
      return requests;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
