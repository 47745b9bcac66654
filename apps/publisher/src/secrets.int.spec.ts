import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { createLogger } from '@pim/logging';
import { Keyring, ResealLoop, newSecretsKey, parseSecretsKeys } from '@pim/secrets';
import { RecordService } from '@pim/records';
import { channelRecord } from './channel/channel.resource';
import { channelCredentialsStore } from './channel/channel.secrets';
import { PUBLISHER_STORE } from './publisher.records';
import { loopbackPolicy, publisherTestContext, type PublisherTestContext } from './testing/publisher.context';

const ROOT = join(__dirname, '..', '..', '..');
const entries = { k1: newSecretsKey('k1'), k2: newSecretsKey('k2') };
/** A keyring of these PIM_SECRETS_KEYS entries, the first current. */
const keyring = (...ids: (keyof typeof entries)[]): Keyring => parseSecretsKeys(ids.map((id) => entries[id]).join(','));
const logger = createLogger({ service: 'secrets-test', level: 'silent' });
const TOKEN = 'Bearer s3cret-token-0123456789';

// Each stored header value and the key it is sealed with, read by SQL alone: the JWE header (before the first dot) decoded.
const VALUES_SQL = `SELECT c."_id", h->>'key' AS key, h->>'value' AS value,
  CASE WHEN h->>'value' LIKE 'ey%' THEN convert_from(decode(translate(split_part(h->>'value', '.', 1), '-_', '+/')
    || repeat('=', (4 - length(split_part(h->>'value', '.', 1)) % 4) % 4), 'base64'), 'UTF8')::jsonb->>'kid' END AS key_id
  FROM publisher.channels c CROSS JOIN LATERAL jsonb_array_elements(c.endpoint->'headers') h
  ORDER BY c."_id", h->>'key'`;

describe('channel credentials sealed at rest (real Postgres, real catalog, a local channel)', () => {
  let ctx: PublisherTestContext;

  beforeAll(async () => {
    ctx = await publisherTestContext('secrets', keyring('k1'));
  });

  afterAll(async () => ctx?.close());
  beforeEach(async () => ctx.reset());

  const stored = (): Promise<{ _id: string; key: string; value: string; key_id: string | null }[]> =>
    ctx.ds.query(VALUES_SQL);

  /** Publishes a new product on `channelId` with a sender that opens credentials with `secrets`; the request the channel got. */
  const publish = async (channelId: string, secrets: Keyring) => {
    const before = ctx.receiver.requests.length;
    const sender = await ctx.startSender({ secrets });
    try {
      const product = await ctx.newProduct();
      const p = await ctx.publications.create({ product_id: product.id, channel_id: channelId });
      await ctx.waitFor(p._id, (x) => x.status === 'published');
      return (await ctx.receiver.waitFor(before + 1))[before];
    } finally {
      await sender.stop();
    }
  };

  it('stores header values sealed (never their text), shows them masked, and sends them in clear to the channel', async () => {
    const channel = await ctx.newChannel({
      endpoint: { url: ctx.receiver.url, headers: [{ key: 'Authorization', value: TOKEN }] },
    });
    expect(channel.endpoint.headers).toEqual([{ key: 'Authorization', value: '****6789' }]);
    const [row] = await stored();
    expect(row.value).not.toContain('s3cret');
    expect(row.value.split('.')).toHaveLength(5);
    expect(row.key_id).toBe('k1');
    expect(JSON.stringify(await ctx.events())).not.toContain('s3cret');

    await ctx.startSender();
    const product = await ctx.newProduct();
    const p = await ctx.publications.create({ product_id: product.id, channel_id: channel._id });
    await ctx.waitFor(p._id, (x) => x.status === 'published');
    const [req] = await ctx.receiver.waitFor(1);
    expect(req.headers.authorization).toBe(TOKEN);
  });

  it('rotates the operator key: values in clear and under the old key are sent meanwhile, and the pass re-seals every one', async () => {
    const a = await ctx.newChannel({
      endpoint: {
        url: ctx.receiver.url,
        headers: [
          { key: 'Authorization', value: TOKEN },
          { key: 'X-Shop', value: 'shop-42' },
        ],
      },
    });
    const b = await ctx.newChannel({ endpoint: { url: ctx.receiver.url, headers: [{ key: 'X-Key', value: 'k-b' }] } });
    await ctx.channels.remove(b._id); // deleted: its credentials are still stored
    // A value written before sealing existed (or by a replica of an older version during the roll-out).
    await ctx.ds.query(
      `UPDATE publisher.channels SET endpoint = jsonb_set(endpoint, '{headers,1,value}', '"shop-42"') WHERE _id = $1`,
      [a._id],
    );
    expect((await stored()).map((r) => r.key_id)).toEqual(['k1', null, 'k1']);
    expect((await ctx.channels.get(a._id)).endpoint.headers[1]).toEqual({ key: 'X-Shop', value: '****' });

    // After step 2 (k2 current, k1 still listed), before any re-seal: both old-key and clear values are sent.
    const step2 = keyring('k2', 'k1');
    const before = await publish(a._id, step2);
    expect(before.headers).toMatchObject({ authorization: TOKEN, 'x-shop': 'shop-42' });

    const loop = new ResealLoop({ keyring: step2, stores: [channelCredentialsStore(ctx.ds)], logger });
    expect(await loop.runOnce()).toMatchObject({
      currentKeyId: 'k2',
      resealed: 3,
      sealedWith: { k2: 3 },
      unreadable: [],
    });
    const rows = await stored();
    expect(rows.map((r) => r.key_id)).toEqual(['k2', 'k2', 'k2']);
    expect(rows.map((r) => step2.open(r.value))).toEqual([TOKEN, 'shop-42', 'k-b']);
    expect((await loop.runOnce()).resealed).toBe(0);
    // The channel did not change for the API (a replica with the step 2 keys): same version, same masked view.
    const api = new RecordService(ctx.ds, channelRecord(loopbackPolicy(), step2), PUBLISHER_STORE);
    expect(await api.get(a._id)).toMatchObject({
      version: a.version,
      endpoint: { headers: [{ value: '****6789' }, { value: '****' }] },
    });

    // Step 3: k1 dropped; the channel still gets its credentials.
    const after = await publish(a._id, keyring('k2'));
    expect(after.headers).toMatchObject({ authorization: TOKEN, 'x-shop': 'shop-42' });
  });

  it('a sender without the key of a credential sends nothing: the attempt waits for a retry, naming the key', async () => {
    const channel = await ctx.newChannel({
      endpoint: { url: ctx.receiver.url, headers: [{ key: 'Authorization', value: TOKEN }] },
    });
    await ctx.startSender({ secrets: keyring('k2') });
    const product = await ctx.newProduct();
    const p = await ctx.publications.create({ product_id: product.id, channel_id: channel._id });
    const waiting = await ctx.waitFor(p._id, (x) => x.tracking.some((t) => t.message?.includes('cannot be opened')));
    expect(waiting.tracking.at(-1)!.message).toContain(
      "sealed with operator key 'k1', which PIM_SECRETS_KEYS does not list",
    );
    expect(ctx.receiver.requests).toHaveLength(0);
  });
});

describe('the publisher app and its operator key', () => {
  it('refuses to start in production without PIM_SECRETS_KEYS, naming it and how to make a key', () => {
    const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'warn' };
    delete env.PIM_SECRETS_KEYS;
    const run = spawnSync(process.execPath, ['-r', '@swc-node/register', join('apps', 'publisher', 'src', 'main.ts')], {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toContain('PIM_SECRETS_KEYS: is required in production');
    expect(run.stderr).toContain("require('crypto').randomBytes(32)");
  });
});
