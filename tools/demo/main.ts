// `npm run demo`: loads the demo catalog of a Brazilian home-goods store into a running platform
// through its public API (data.ts, loader.ts), with a webhook to a receiver in this process that
// prints every delivery. Idempotent: run it again and nothing changes.
//
//   PIM_API_URL         the API (default http://127.0.0.1:8080/api/v1)
//   PIM_API_KEY         an admin key (default: the one `npm start` keeps in <PIM_DATA_DIR or .data>/bootstrap-api-key)
//   DEMO_RECEIVER_PORT  the receiver's port (default: the demo webhook's previous one, else a free one)
//   --no-receiver       no receiver and no webhook
//   --exit              leave after the summary (default on a terminal: keep printing deliveries until Ctrl-C)
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DemoApiError, DemoUnreachableError } from './api';
import { WEBHOOK_COLLECTIONS } from './data';
import { COLLECTIONS, DemoBulkError, demoWebhooks, loadDemo, type LoadResult } from './loader';
import { startDemoReceiver, type DemoReceiver } from './receiver';

const ROOT = resolve(__dirname, '../..');

const USAGE = `npm run demo [-- --no-receiver] [-- --exit]
  Loads the Casa Brasil demo catalog into a running platform (npm start) through its API.
  PIM_API_URL (default http://127.0.0.1:8080/api/v1), PIM_API_KEY (default: <PIM_DATA_DIR or .data>/bootstrap-api-key),
  DEMO_RECEIVER_PORT (the webhook receiver's port).
  --no-receiver  no local webhook receiver and no webhook
  --exit         leave right after the summary`;

function fail(message: string): never {
  console.error(`demo: ${message}`);
  process.exit(1);
}

/** The admin key: PIM_API_KEY, else the bootstrap key file `npm start` writes; and how to show it in curl lines. */
function apiKey(): { key: string; shell: string } {
  if (process.env.PIM_API_KEY) return { key: process.env.PIM_API_KEY.trim(), shell: 'KEY=$PIM_API_KEY' };
  const file = resolve(ROOT, process.env.PIM_DATA_DIR || '.data', 'bootstrap-api-key');
  if (!existsSync(file))
    fail(`no API key: set PIM_API_KEY, or start the platform with npm start (it keeps its admin key in ${file})`);
  return { key: readFileSync(file, 'utf8').trim(), shell: `KEY=$(cat ${file})` };
}

function receiverPort(previous: string[]): number {
  const raw = process.env.DEMO_RECEIVER_PORT;
  if (raw) {
    const port = Number(raw);
    if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`DEMO_RECEIVER_PORT=${raw} is not a port`);
    return port;
  }
  // The port the demo webhooks already point at, so that a second run changes nothing.
  for (const url of previous) {
    try {
      const u = new URL(url);
      if (u.hostname === '127.0.0.1' && u.port) return Number(u.port);
    } catch {
      // not a URL the receiver could have had
    }
  }
  return 0;
}

function summary(r: LoadResult): string {
  const rows = COLLECTIONS.map((c) => [c, r.counts[c].created, r.counts[c].changed, r.counts[c].unchanged] as const);
  const total = rows.reduce((s, [, a, b, c]) => [s[0] + a, s[1] + b, s[2] + c], [0, 0, 0]);
  const line = (name: string, a: number | string, b: number | string, c: number | string) =>
    `  ${name.padEnd(20)} ${String(a).padStart(8)} ${String(b).padStart(8)} ${String(c).padStart(10)}`;
  return [
    line('collection', 'created', 'changed', 'unchanged'),
    ...rows.map(([n, a, b, c]) => line(n, a, b, c)),
    line('total', total[0], total[1], total[2]),
    '',
    `${total[0]} created, ${total[1]} changed, ${total[2]} unchanged in ${(r.ms / 1000).toFixed(1)} s (${r.requests} requests)`,
  ].join('\n');
}

function curlLines(url: string, keyShell: string, r: LoadResult): string {
  const auth = '-H "authorization: Bearer $KEY"';
  const lines = [
    keyShell,
    `curl -s ${auth} '${url}/products?_search=frigideira&expand=brand,categories&sort=code&limit=3'`,
    `curl -s ${auth} '${url}/product-relations?product_id=${r.sample.kitId}&expand=product'   # ${r.sample.kitCode}`,
  ];
  const hook = r.webhook.ids.products ?? Object.values(r.webhook.ids)[0];
  if (r.webhook.status === 'set' && hook)
    lines.push(
      `curl -s -X POST ${auth} '${url}/webhooks/${hook}/test'   # the receiver prints a webhooks.test delivery`,
    );
  else lines.push(`curl -s ${auth} '${url}/orders?channel.code=vitrine&overdue=true&sort=-placed_at&limit=5'`);
  return lines.map((l) => `  ${l}`).join('\n');
}

function byType(receiver: DemoReceiver): string {
  const counts = new Map<string, number>();
  for (const d of receiver.deliveries) counts.set(d.type, (counts.get(d.type) ?? 0) + 1);
  return [...counts].map(([type, n]) => `${type} ${n}`).join(', ');
}

async function main(): Promise<void> {
  const args = new Set(process.argv.slice(2));
  if (args.has('--help') || args.has('-h')) {
    console.log(USAGE);
    return;
  }
  for (const a of args)
    if (!['--receiver', '--no-receiver', '--exit'].includes(a)) fail(`unknown option ${a}\n${USAGE}`);
  const url = (process.env.PIM_API_URL || 'http://127.0.0.1:8080/api/v1').replace(/\/+$/, '');
  const { key, shell } = apiKey();
  const withReceiver = !args.has('--no-receiver');

  console.log(`Loading the Casa Brasil demo catalog into ${url}`);
  let receiver: DemoReceiver | undefined;
  if (withReceiver) {
    const previous = (await demoWebhooks(url, key)).map((w) => String(w.url ?? ''));
    receiver = await startDemoReceiver({
      port: receiverPort(previous),
      onDelivery: (d) =>
        console.log(`  webhook ← ${d.type.padEnd(24)} ${(d.code ?? '').padEnd(22)} ${d.id ?? ''}  event ${d.eventId}`),
    });
    if (receiver.movedFrom)
      console.log(`(port ${receiver.movedFrom} is busy: the demo webhooks move to ${receiver.port})`);
    console.log(`Webhook receiver listening on ${receiver.url}`);
  }

  const result = await loadDemo({ url, key, webhookUrl: receiver?.url, log: (line) => console.log(line) });

  const w = result.webhook;
  if (w.status === 'refused') {
    console.log(
      [
        '',
        `The platform refused the webhook to ${receiver?.url}:`,
        `  ${w.message}`,
        'It delivers only to public addresses unless told otherwise. To see deliveries here, restart it with',
        '  WEBHOOKS_ALLOWED_TARGETS=127.0.0.0/8 npm start',
        'and run npm run demo again. Everything else is loaded, without the webhook.',
      ].join('\n'),
    );
  } else if (w.message) console.log(`(webhooks: ${w.message})`);

  const delivered = WEBHOOK_COLLECTIONS.some((c) => {
    const n = result.counts[c as keyof LoadResult['counts']];
    return n && n.created + n.changed > 0;
  });
  if (receiver && w.status === 'set' && delivered) {
    console.log('Waiting for the webhook deliveries…');
    await receiver.settle(3_000, 90_000);
  }

  console.log(`\nSummary\n${summary(result)}`);
  if (receiver && w.status === 'set')
    console.log(
      `Webhook deliveries received: ${receiver.deliveries.length}${receiver.deliveries.length ? ` (${byType(receiver)})` : ''}`,
    );
  console.log(`\nTry it:\n${curlLines(url, shell, result)}\n`);

  if (receiver && w.status === 'set' && process.stdout.isTTY && !args.has('--exit')) {
    console.log(`Still listening on ${receiver.url} for deliveries; Ctrl-C to stop (--exit to leave at once).`);
    await new Promise<void>((r) => process.once('SIGINT', () => r()));
  }
  await receiver?.close();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    if (err instanceof DemoApiError || err instanceof DemoBulkError) {
      console.error(`\ndemo: the API refused a request\n${err.describe()}`);
    } else if (err instanceof DemoUnreachableError) {
      console.error(`\ndemo: ${err.message}`);
    } else {
      console.error(`\ndemo: ${(err as Error)?.stack ?? err}`);
    }
    process.exit(1);
  },
);
