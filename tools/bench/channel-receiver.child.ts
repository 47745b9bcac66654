// A sales channel's endpoint for the publisher benchmark, in its own process so that the bench's
// raw client and the publisher compete for the CPU the same way. Answers 201 with `{}` to every
// other request as soon as its body has arrived, and counts them: requests, distinct
// Idempotency-Keys (a publication sent twice shows as fewer keys than requests), the arrival time
// of each. Control: GET /_stats (counts, first and last arrival), GET /_times (every arrival, ms
// since the epoch), POST /_reset. Prints its port as one JSON line.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let count = 0;
let bytes = 0;
let keys = new Set<string>();
let times: number[] = [];

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/_stats') {
    const stats = { count, distinct: keys.size, bytes, first: times[0] ?? null, last: times.at(-1) ?? null };
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(stats));
    return;
  }
  if (req.method === 'GET' && req.url === '/_times') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(times));
    return;
  }
  if (req.method === 'POST' && req.url === '/_reset') {
    count = 0;
    bytes = 0;
    keys = new Set();
    times = [];
    req.resume();
    res.writeHead(204).end();
    return;
  }
  req.on('data', (c: Buffer) => {
    bytes += c.length;
  });
  req.on('end', () => {
    count += 1;
    times.push(Date.now());
    const key = req.headers['idempotency-key'];
    if (typeof key === 'string') keys.add(key);
    res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
  });
});
server.keepAliveTimeout = 30_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
