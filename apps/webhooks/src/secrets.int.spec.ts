import 'reflect-metadata';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { createLogger } from '@pim/logging';
import { Keyring, ResealLoop, newSecretsKey, parseSecretsKeys } from '@pim/secrets';
import { startAppProcess, startReceiver, type TestReceiver } from '@pim/testing';
import { webhooksTestContext, type WebhooksTestContext } from './testing/webhooks.context';
import { WorkerPool, loopbackPolicy, recordEvents, testEvent, until } from './testing/delivery.harness';
import { webhookSecretsStore } from './delivery/secrets.reseal';
import { newSigningSecret } from './webhook/webhook.service';

const ROOT = join(__dirname, '..', '..', '..');
const entries = { k1: newSecretsKey('k1'), k2: newSecretsKey('k2') };
/** A keyring of these PIM_SECRETS_KEYS entries, the first current. */
const keyring = (...ids: (keyof typeof entries)[]): Keyring => parseSecretsKeys(ids.map((id) => entries[id]).join(','));
const logger = createLogger({ service: 'secrets-test', level: 'silent' });
const page = { page: 1, limit: 100, skip: 0, sort: [], filters: [], expand: [] };

// The key id of a stored secret, read by SQL alone: its JWE header (the part before the first dot) decoded.
const kid = (column: string) => `convert_from(decode(translate(split_part(${column}, '.', 1), '-_', '+/')
  || repeat('=', (4 - length(split_part(${column}, '.', 1)) % 4) % 4), 'base64'), 'UTF8')::jsonb->>'kid'`;
const KEY_IDS_SQL = `SELECT "_id", secret, previous_secret,
  CASE WHEN secret LIKE 'ey%' THEN ${kid('secret')} END AS secret_key,
  CASE WHEN previous_secret LIKE 'ey%' THEN ${kid('previous_secret')} END AS previous_key
  FROM webhooks.webhooks ORDER BY "_id"`;

describe('signing secrets sealed at rest (real Postgres, real receivers)', () => {
  let ctx: WebhooksTestContext;
  let receiver: TestReceiver;
  const pools: WorkerPool[] = [];

  beforeAll(async () => {
    ctx = await webhooksTestContext({ policy: loopbackPolicy(), secrets: keyring('k1') });
  });

  afterAll(async () => {
    await ctx.close();
  });

  beforeEach(async () => {
    await ctx.reset();
    receiver = await startReceiver();
  });

  afterEach(async () => {
    for (const pool of pools.splice(0)) await pool.stopAll();
    await receiver.close();
  });

  /** Starts a delivery worker that opens secrets with `secrets` (a replica with those settings). */
  const worker = async (secrets: Keyring) => {
    const pool = new WorkerPool(ctx.ds, secrets);
    pools.push(pool);
    await pool.start();
    return pool;
  };

  const keyIds = async (): Promise<
    {
      _id: string;
      secret_key: string | null;
      previous_key: string | null;
      secret: string;
      previous_secret: string | null;
    }[]
  > => ctx.ds.query(KEY_IDS_SQL);

  /** Delivers one event of `collection` and returns the request the receiver got. */
  const deliverOne = async (collection: string, n: number) => {
    await recordEvents(ctx.ds, [testEvent(collection)]);
    const requests = await receiver.waitFor(n);
    return requests[n - 1];
  };

  it('stores the secret sealed (never its text), shows it once in clear, and signs deliveries with it', async () => {
    const { webhook, secret } = await ctx.newWebhook({ collection: 'products', url: receiver.url });
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);

    const [row] = await keyIds();
    expect(row.secret).not.toBe(secret);
    expect(row.secret).not.toContain(secret.slice('whsec_'.length));
    expect(row.secret.split('.')).toHaveLength(5);
    expect(row.secret_key).toBe('k1');
    expect(JSON.stringify(await ctx.ds.query('SELECT envelope FROM webhooks.outbox'))).not.toContain(secret.slice(6));
    expect(JSON.stringify(await ctx.service.get(webhook._id))).not.toContain('secret');

    await worker(ctx.secrets);
    const req = await deliverOne('products', 1);
    expect(() => new Webhook(secret).verify(req.body, req.headers as Record<string, string>)).not.toThrow();
  });

  it('reads secrets stored in clear before sealing existed, and the re-seal pass seals them', async () => {
    const { webhook } = await ctx.newWebhook({ collection: 'brands', url: receiver.url });
    // As a row written by an older version (or by one of its replicas during the roll-out) holds it.
    const clear = newSigningSecret();
    const previous = newSigningSecret();
    await ctx.ds.query(
      `UPDATE webhooks.webhooks SET secret = $2, previous_secret = $3, previous_secret_expires_at = now() + interval '1 hour' WHERE _id = $1`,
      [webhook._id, clear, previous],
    );
    await worker(ctx.secrets);
    const req = await deliverOne('brands', 1);
    expect(() => new Webhook(clear).verify(req.body, req.headers as Record<string, string>)).not.toThrow();
    expect(() => new Webhook(previous).verify(req.body, req.headers as Record<string, string>)).not.toThrow();

    const report = await new ResealLoop({
      keyring: ctx.secrets,
      stores: [webhookSecretsStore(ctx.ds)],
      logger,
    }).runOnce();
    expect(report).toMatchObject({ currentKeyId: 'k1', resealed: 2, sealedWith: { k1: 2 }, unreadable: [] });
    const [row] = await keyIds();
    expect(row).toMatchObject({ secret_key: 'k1', previous_key: 'k1' });
    expect(ctx.secrets.open(row.secret)).toBe(clear);
  });

  it('rotates the operator key: old-key values open meanwhile, the pass re-seals every one (deleted webhooks too), the old key can go', async () => {
    const made = [
      await ctx.newWebhook({ collection: 'categories', url: receiver.url }),
      await ctx.newWebhook({ collection: 'families', url: receiver.url }),
      await ctx.newWebhook({ collection: 'catalogs', url: receiver.url }),
    ];
    const rotated = await ctx.service.rotateSecret(made[1].webhook._id); // a previous secret, under k1 too
    await ctx.service.remove(made[2].webhook._id); // deleted: its secret is still stored
    expect((await keyIds()).map((r) => [r.secret_key, r.previous_key])).toEqual([
      ['k1', null],
      ['k1', 'k1'],
      ['k1', null],
    ]);

    // Step 1 rolls k2 out decrypt-only; step 2 makes it current. A replica on step 2 (k2 first)
    // signs with values still sealed with k1, before any re-seal.
    const step2 = keyring('k2', 'k1');
    await worker(step2);
    const before = await deliverOne('categories', 1);
    expect(() =>
      new Webhook(made[0].secret).verify(before.body, before.headers as Record<string, string>),
    ).not.toThrow();

    const loop = new ResealLoop({ keyring: step2, stores: [webhookSecretsStore(ctx.ds)], logger });
    const report = await loop.runOnce();
    expect(report).toMatchObject({ currentKeyId: 'k2', resealed: 4, sealedWith: { k2: 4 }, unreadable: [] });
    const rows = await keyIds();
    expect(rows.map((r) => [r.secret_key, r.previous_key])).toEqual([
      ['k2', null],
      ['k2', 'k2'],
      ['k2', null],
    ]);
    expect(rows.map((r) => step2.open(r.secret))).toEqual([made[0].secret, rotated.secret, made[2].secret]);
    expect(step2.open(rows[1].previous_secret!)).toBe(made[1].secret);
    expect((await loop.runOnce()).resealed).toBe(0);

    // Step 3: k1 dropped. Every value opens with k2 alone; deliveries are still signed with the same secrets.
    for (const pool of pools.splice(0)) await pool.stopAll();
    await worker(keyring('k2'));
    const after = await deliverOne('categories', 2);
    expect(() => new Webhook(made[0].secret).verify(after.body, after.headers as Record<string, string>)).not.toThrow();
  });

  it('a replica that does not hold the key of a secret sends nothing unsigned: the attempt is refused, and retried', async () => {
    const { webhook } = await ctx.newWebhook({ collection: 'orders', url: receiver.url });
    await worker(keyring('k2')); // k1 missing: the key the secret is sealed with
    await recordEvents(ctx.ds, [testEvent('orders')]);
    await until(
      async () => (await ctx.deliveries.list(webhook._id, page)).data[0]?.attempts >= 1,
      10_000,
      'an attempt',
    );
    const [delivery] = (await ctx.deliveries.list(webhook._id, page)).data;
    const detail = await ctx.deliveries.get(webhook._id, delivery._id);
    expect(detail.attempts[0]).toMatchObject({
      outcome: 'blocked',
      error: expect.stringContaining("sealed with operator key 'k1', which PIM_SECRETS_KEYS does not list"),
    });
    expect(receiver.requests).toHaveLength(0);
  });
});

describe('the webhooks app and its operator key', () => {
  it('refuses to start in production without PIM_SECRETS_KEYS, naming it and how to make a key', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
    delete env.PIM_SECRETS_KEYS;
    const run = spawnSync(process.execPath, ['-r', '@swc-node/register', join('apps', 'webhooks', 'src', 'main.ts')], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('start-up failed');
    expect(run.stderr).toContain('PIM_SECRETS_KEYS: is required in production');
    expect(run.stderr).toContain("require('crypto').randomBytes(32)");
  });

  it('starts in production with a key and seals the secrets still in clear at once', async () => {
    const ctx = await webhooksTestContext({ secrets: keyring('k1') });
    try {
      const { webhook } = await ctx.newWebhook({ collection: 'products' });
      const clear = newSigningSecret();
      await ctx.ds.query(`UPDATE webhooks.webhooks SET secret = $2 WHERE _id = $1`, [webhook._id, clear]);
      const app = await startAppProcess('webhooks', ctx.db.url, {
        NODE_ENV: 'production',
        PIM_SECRETS_KEYS: `${entries.k2},${entries.k1}`,
        WEBHOOKS_FANOUT: 'false',
        WEBHOOKS_DELIVERY: 'false',
      });
      try {
        await until(
          async () => {
            const [row] = await ctx.ds.query('SELECT secret FROM webhooks.webhooks WHERE _id = $1', [webhook._id]);
            return row.secret !== clear;
          },
          20_000,
          'the start-up pass sealed the clear secret',
        );
        const [row] = await ctx.ds.query('SELECT secret FROM webhooks.webhooks WHERE _id = $1', [webhook._id]);
        expect(keyring('k2').open(row.secret)).toBe(clear);
      } finally {
        await app.stop();
      }
    } finally {
      await ctx.close();
    }
  });
});
