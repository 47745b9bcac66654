import type { ChaosApi } from './api';
import { bulkProducts, createProduct, createTaxonomy, renameOwned } from './catalog.ops';
import type { Fixtures } from './fixtures';
import { approvalFlow, createOrder, moveOrder } from './flows.ops';
import { exportFlow, importFlow, touchWebhook } from './jobs.ops';
import { Lane } from './lane';
import type { Ledger } from './ledger';
import type { ChaosOptions } from './options';
import type { Random } from './random';

/** What a lane can do, and how often (relative weights). */
const OPERATIONS = {
  createTaxonomy: { weight: 8, run: createTaxonomy },
  renameTaxonomy: { weight: 10, run: (l: Lane) => renameOwned(l, false) },
  createProduct: { weight: 8, run: async (l: Lane) => void (await createProduct(l)) },
  renameProduct: { weight: 12, run: (l: Lane) => renameOwned(l, true) },
  bulkProducts: { weight: 3, run: bulkProducts },
  createOrder: { weight: 8, run: createOrder },
  moveOrder: { weight: 16, run: moveOrder },
  approval: { weight: 5, run: approvalFlow },
  import: { weight: 1.5, run: importFlow },
  export: { weight: 1.5, run: exportFlow },
  touchWebhook: { weight: 3, run: touchWebhook },
};
type Operation = keyof typeof OPERATIONS;

/** Each lane begins with these, so even a short run starts a job of each kind and decides an approval. */
const FIRST: Operation[][] = [['import', 'approval'], ['export', 'approval'], ['approval']];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Drives the public API from `opts.lanes` lanes until `stop` resolves: creates and renames of
 * catalog records and products, orders placed and moved along their workflow, product approvals
 * proposed and decided, imports and exports started, webhooks changed. Every write is noted in the
 * ledger with how it ended. A write in progress when `stop` comes is finished (with its retries).
 */
export async function write(
  api: ChaosApi,
  fixtures: Fixtures,
  ledger: Ledger,
  opts: ChaosOptions,
  random: Random,
  stop: Promise<void>,
): Promise<void> {
  let stopping = false;
  void stop.then(() => {
    stopping = true;
  });
  const weights = Object.fromEntries(Object.entries(OPERATIONS).map(([k, v]) => [k, v.weight])) as Record<
    Operation,
    number
  >;
  await Promise.all(
    Array.from({ length: opts.lanes }, async (_, n) => {
      const lane = new Lane(n, random.fork(n), api, ledger, fixtures, opts);
      const first = [...(FIRST[n] ?? [])];
      while (!stopping) {
        const op = first.shift() ?? lane.random.weighted(weights);
        await OPERATIONS[op].run(lane);
        await sleep(lane.random.int(...opts.pauseMs));
      }
    }),
  );
}
