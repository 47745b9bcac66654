import { createServer, type Server } from 'node:http';
import type { Registry } from 'prom-client';
import type { Logger } from '@pim/logging';

/**
 * Serves a Prometheus registry at `GET /metrics` on `port` (0: any free port). A port already
 * taken is logged and the app runs without metrics rather than failing to start.
 */
export async function serveMetrics(registry: Registry, port: number, logger: Logger): Promise<Server | undefined> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      (err: unknown) => {
        logger.error({ err }, 'metrics collection failed');
        res.writeHead(500).end();
      },
    );
  });
  return new Promise((resolve) => {
    server.once('error', (err) => {
      logger.warn({ err, port }, 'metrics port unavailable; serving no metrics');
      resolve(undefined);
    });
    server.listen(port, '0.0.0.0', () => {
      logger.info({ port: (server.address() as { port: number }).port }, 'metrics on /metrics');
      resolve(server);
    });
  });
}
