// The baselines of the GET /products/{id} ratio: one process, node:http + pg, answering the same
// JSON the API shows for a product, read straight from catalog.products. BASELINE_MODE=rendered
// reads what the catalog reads — the stored rendering (`rendered`) by primary key — and renders
// from the columns only for a row without one; BASELINE_MODE=columns (the default) always reads
// the row's columns and renders them with the catalog's own view function. Prints its port.
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'pg';
import { productView } from '../../apps/catalog/src/product/product.resource';
import type { ProductEntity } from '../../apps/catalog/src/entities/product.entity';

const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const PREFIX = '/api/v1/products/';
const RENDERED = process.env.BASELINE_MODE === 'rendered';

function answer(res: ServerResponse, version: number, json: string): void {
  res.writeHead(200, { 'content-type': 'application/json', etag: `"${version}"` }).end(json);
}

async function fromColumns(id: string): Promise<{ version: number; json: string } | undefined> {
  const { rows } = await pool.query(`SELECT * FROM catalog.products WHERE "_id" = $1 AND deleted = false`, [id]);
  const p = rows[0] as (ProductEntity & { version: number }) | undefined;
  if (!p) return undefined;
  const body = {
    _id: p._id,
    ...productView(p),
    version: p.version,
    created_at: p.created_at.toISOString(),
    updated_at: p.updated_at.toISOString(),
  };
  return { version: p.version, json: JSON.stringify(body) };
}

const server = createServer((req, res) => {
  const id = req.url?.startsWith(PREFIX) ? req.url.slice(PREFIX.length) : '';
  if (!RENDERED) {
    fromColumns(id).then(
      (found) =>
        found
          ? answer(res, found.version, found.json)
          : res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}'),
      () => res.writeHead(500).end(),
    );
    return;
  }
  pool
    .query(`SELECT "version", "rendered" FROM catalog.products WHERE "_id" = $1 AND deleted = false`, [id])
    .then(async ({ rows }) => {
      const row = rows[0] as { version: number; rendered: string | null } | undefined;
      const found =
        row && row.rendered !== null
          ? { version: row.version, json: row.rendered }
          : row
            ? await fromColumns(id)
            : undefined;
      if (!found) res.writeHead(404, { 'content-type': 'application/json' }).end('{"message":"not found"}');
      else answer(res, found.version, found.json);
    })
    .catch(() => res.writeHead(500).end());
});

server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: (server.address() as AddressInfo).port })}\n`);
});
process.on('SIGTERM', () => {
  server.close();
  void pool.end().finally(() => process.exit(0));
});
