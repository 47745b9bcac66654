// A webhook receiver in its own process, so the bench's client and the webhooks app compete for
// the CPU the same way. Answers 200 to every POST and keeps, per request, its arrival time, its
// webhook-id and the payload's timestamp. Control: GET /_stats, POST /_reset. Prints its port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

interface Hit {
  at: number;
  id: string;
  /** The event's time (payload.timestamp), when the body is a delivery. */
  eventAt: number | null;
}

let hits: Hit[] = [];

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/_stats') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(hits));
    return;
  }
  if (req.method === 'POST' && req.url === '/_reset') {
    hits = [];
    req.resume();
    res.writeHead(204).end();
    return;
  }
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = Date.now();
    let eventAt: number | null = null;
    const id = String(req.headers['webhook-id'] ?? '');
    if (id) {
      try {
        eventAt = Date.parse((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: string }).timestamp);
      } catch {
        eventAt = null;
      }
    }
    hits.push({ at, id, eventAt });
    res.writeHead(200).end('ok');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
