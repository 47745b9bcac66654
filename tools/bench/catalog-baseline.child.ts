// The baseline of the GET /products/{id} ratio: one process, node:http + pg, answering the same
// JSON the API shows for a product, read straight from catalog.products. Prints its port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { productView } from '../../apps/catalog/src/product/product.resource';
import type { ProductEntity } from '../../apps/catalog/src/product/product.entity';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const PREFIX = '/api/v1/products/';

const server = createServer((req, res) => {
  const id = req.url?.startsWith(PREFIX) ? req.url.slice(PREFIX.length) : '';
  pool.query(`SELECT * FROM catalog.products WHERE "_id" = $1 AND deleted = false`, [id]).then(
    ({ rows }) => {
      const p = rows[0] as (ProductEntity & { version: number }) | undefined;
      if (!p) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}');
        return;
      }
      const body = { _id: p._id, ...productView(p), version: p.version, created_at: p.created_at.toISOString(), updated_at: p.updated_at.toISOString() };
      res.writeHead(200, { 'content-type': 'application/json', etag: `"${p.version}"` }).end(JSON.stringify(body));
    },
    () => res.writeHead(500).end(),
  );
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  void pool.end().finally(() => process.exit(0));
});
