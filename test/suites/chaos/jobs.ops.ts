import type { Json } from './api';
import type { Lane, Owned } from './lane';
import { triesOf } from './ledger';

/** Rows of every import the API must refuse: no code. */
const REFUSED_ROWS = 2;

/**
 * An import from upload to start: a CSV of good rows (codes of their own) and two refused ones,
 * its columns mapped, then started. The upload carries no Idempotency-Key (the API takes none on
 * uploads): an upload retried after a lost answer leaves an extra `uploaded` import, never started.
 */
export async function importFlow(lane: Lane): Promise<void> {
  const name = lane.nextName();
  const good = lane.opts.importRows - REFUSED_ROWS;
  const codes = Array.from({ length: good }, (_, i) => `I-${name}-${i}`);
  const lines = ['SKU;Name', ...codes.map((c) => `${c};Imported ${c}`)];
  for (let i = 0; i < REFUSED_ROWS; i++) lines.splice(2 + i * 7, 0, `;Broken ${i}`);
  const csv = `${lines.join('\r\n')}\r\n`;
  const form = () => {
    const f = new FormData();
    f.append('file', new Blob([csv]), `${name}.csv`);
    return f;
  };
  const up = await lane.api.write({ method: 'POST', path: '/imports', form }, lane.opts.writeDeadlineMs);
  const uploaded = up.status === 201;
  lane.ledger.serverErrors.push(...up.serverErrors);
  lane.ledger.add({
    lane: lane.n,
    op: 'imports.upload',
    result: uploaded ? 'acked' : up.status === 0 || up.status >= 500 ? 'abandoned' : 'refused',
    collection: 'imports',
    id: up.json._id as string | undefined,
    version: up.json.version as number | undefined,
    ...(uploaded ? {} : { answer: `${up.status} ${up.error ?? ''}` }),
    ...triesOf(up),
  });
  if (!uploaded) return;
  const id = up.json._id as string;
  const rec: Owned = { collection: 'imports', path: `/imports/${id}`, id, version: up.json.version as number };
  const mapped = await lane.change(
    'imports.map',
    rec,
    { method: 'PATCH', path: rec.path, body: { mapped_headers: { A: 'code', B: 'name.en' } } },
    (now) => now.status === 'mapped',
  );
  if (!mapped.record) return;
  const started = await lane.change(
    'imports.start',
    rec,
    { method: 'POST', path: `${rec.path}/start`, body: {} },
    (now) => now.status !== 'mapped',
  );
  if (started.record) lane.ledger.imports.push({ id: rec.id, rows: lines.length - 1, refused: REFUSED_ROWS, codes });
}

/** An export of the products made before the chaos, by their ids. */
export async function exportFlow(lane: Lane): Promise<void> {
  const fileName = `chaos-${lane.nextName()}`;
  const products = lane.fixtures.exportProducts;
  const made = await lane.create(
    'exports.create',
    'exports',
    '/exports',
    {
      file_type: lane.random.pick(['csv', 'xlsx']),
      file_name: fileName,
      filters: { _id_in: products.map((p) => p.id) },
    },
    async () => {
      const page = await lane.api.read(`/exports?_search=${fileName}`, lane.opts.writeDeadlineMs);
      return (page.json.data as Json[] | undefined)?.find((e) => String(e.file_name).startsWith(fileName));
    },
  );
  if (made)
    lane.ledger.exports.push({
      id: made._id as string,
      productIds: products.map((p) => p.id),
      codes: products.map((p) => p.code),
    });
}

/**
 * Changes the headers of one collection's webhook (a PUT: an upsert by collection); each lane has
 * collections of its own, so its last write is the webhook's state.
 */
export async function touchWebhook(lane: Lane): Promise<void> {
  const mine = lane.fixtures.collections.filter((_, i) => i % lane.opts.lanes === lane.n);
  const collection = lane.random.pick(mine);
  const mark = lane.nextName();
  const body = { collection, url: lane.fixtures.receiverUrl, headers: [{ key: 'X-Chaos', value: mark }] };
  const out = await lane.api.write({ method: 'PUT', path: '/webhooks', body }, lane.opts.writeDeadlineMs);
  lane.ledger.serverErrors.push(...out.serverErrors);
  let record: Json | undefined = out.status === 200 ? out.json : undefined;
  let result: 'acked' | 'applied' | 'refused' | 'abandoned' = record ? 'acked' : 'refused';
  if (!record && (out.uncertain || out.status === 0)) {
    // The PUT is an upsert without a guard: read the webhook to see whether a try went through.
    const page = await lane.api.read(`/webhooks?collection=${collection}`, lane.opts.writeDeadlineMs);
    const now = (page.json.data as Json[] | undefined)?.[0];
    const has = (now?.headers as { value: string }[] | undefined)?.some((h) => h.value === mark);
    record = has ? now : undefined;
    result = has ? 'applied' : out.status === 0 || out.status >= 500 ? 'abandoned' : 'refused';
  }
  lane.ledger.add(
    {
      lane: lane.n,
      op: 'webhooks.update',
      result,
      collection: 'webhooks',
      id: record?._id as string | undefined,
      version: record?.version as number | undefined,
      ...(result === 'acked' ? {} : { answer: `${out.status} ${out.error ?? ''}` }),
      ...triesOf(out),
    },
    record && { path: `/webhooks/${record._id}`, fields: { collection, url: body.url } },
  );
}
