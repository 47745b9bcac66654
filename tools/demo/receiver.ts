// A tiny webhook receiver for the demo: answers 200 to every delivery on loopback and hands each
// one (its event type, the record's id and code) to a printer.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One delivery the receiver got. */
export interface Delivery {
  /** The event id (`webhook-id` header; the same on every attempt). */
  eventId: string;
  /** The event type, e.g. `products.created`. */
  type: string;
  /** When the event happened (the payload's `timestamp`). */
  eventAt?: string;
  /** The record's `_id` and `code`, when the payload has them. */
  id?: string;
  code?: string;
  at: number;
}

export interface DemoReceiver {
  /** The URL webhooks deliver to. */
  url: string;
  port: number;
  /** Whether the asked port was busy and another was taken. */
  movedFrom?: number;
  deliveries: Delivery[];
  /** Resolves once no delivery came for `quietMs` (at least one having come), or after `maxMs`. */
  settle(quietMs?: number, maxMs?: number): Promise<void>;
  close(): Promise<void>;
}

export const RECEIVER_PATH = '/pim-demo/webhooks';

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** Starts the receiver on 127.0.0.1:`port` (0, or a busy port: a free one). */
export async function startDemoReceiver(
  opts: { port?: number; onDelivery?: (d: Delivery) => void } = {},
): Promise<DemoReceiver> {
  const deliveries: Delivery[] = [];
  let last = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (req.method !== 'POST') return;
      let payload: { type?: string; timestamp?: string; data?: { _id?: string; code?: string } } = {};
      try {
        payload = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        // Not JSON: still a delivery, of an unknown type.
      }
      const d: Delivery = {
        eventId: String(req.headers['webhook-id'] ?? ''),
        type: payload.type ?? '(unknown)',
        ...(payload.timestamp ? { eventAt: payload.timestamp } : {}),
        ...(payload.data?._id ? { id: payload.data._id } : {}),
        ...(payload.data?.code ? { code: String(payload.data.code) } : {}),
        at: Date.now(),
      };
      deliveries.push(d);
      last = d.at;
      opts.onDelivery?.(d);
    });
  });
  server.keepAliveTimeout = 30_000;
  const asked = opts.port ?? 0;
  let port: number;
  try {
    port = await listen(server, asked);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE' || asked === 0) throw err;
    port = await listen(server, 0);
  }
  return {
    url: `http://127.0.0.1:${port}${RECEIVER_PATH}`,
    port,
    ...(asked !== 0 && port !== asked ? { movedFrom: asked } : {}),
    deliveries,
    async settle(quietMs = 3_000, maxMs = 60_000) {
      const until = Date.now() + maxMs;
      while (Date.now() < until) {
        if (last > 0 && Date.now() - last >= quietMs) return;
        await new Promise((r) => setTimeout(r, 200));
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
