import 'reflect-metadata';
import { NotFoundError, PreconditionFailedError, ValidationError } from '@pim/errors';
import { webhooksTestContext, type WebhooksTestContext } from '../testing/webhooks.context';
import { parseAllowList } from '@pim/outbound';
import { webhookAddressPolicy } from './webhook.resource';
import { WebhookService } from './webhook.service';

describe('webhook targets, body keys and secret rotation (real Postgres)', () => {
  let ctx: WebhooksTestContext;

  beforeAll(async () => {
    // The production default: no operator allowance.
    ctx = await webhooksTestContext();
  });

  afterAll(async () => {
    await ctx.close();
  });

  beforeEach(async () => {
    await ctx.reset();
  });

  it.each([
    ['http://169.254.169.254/latest/meta-data/', 'link-local'],
    ['http://10.0.0.1/', 'private'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://127.0.0.1:8080/hook', 'loopback'],
    ['http://localhost:8080/hook', 'loopback'],
    ['https://[fd00::5]/', 'unique-local'],
  ])('refuses %s at configuration time (allowance off)', async (url, kind) => {
    const err = await ctx.service.create({ collection: 'products', url }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).details).toEqual([{ field: 'url', message: expect.stringContaining(kind) }]);
    await expect(ctx.service.upsert({ collection: 'products', url })).rejects.toBeInstanceOf(ValidationError);
  });

  it('refuses private targets on replace and patch too, and accepts public names and addresses', async () => {
    const { webhook } = await ctx.newWebhook({ collection: 'orders', url: 'https://hooks.example.com/in' });
    await expect(ctx.service.patch(webhook._id, { url: 'http://192.168.0.10/' })).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(
      ctx.service.replace(webhook._id, { collection: 'orders', url: 'http://100.64.0.1/' }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(ctx.service.patch(webhook._id, { url: 'http://93.184.216.34/hook' })).resolves.toMatchObject({
      url: 'http://93.184.216.34/hook',
    });
    // A name is judged where it resolves, at delivery time (it may change; no DNS at configuration time).
    await expect(ctx.service.patch(webhook._id, { url: 'https://internal.example.net/hook' })).resolves.toMatchObject({
      version: 3,
    });
  });

  it('accepts loopback once the operator allows it', async () => {
    const allowing = new WebhookService(ctx.ds, {
      secrets: ctx.secrets,
      policy: webhookAddressPolicy(parseAllowList('127.0.0.0/8')),
    });
    await expect(allowing.create({ collection: 'brands', url: 'http://127.0.0.1:8080/hook' })).resolves.toBeDefined();
    await expect(allowing.create({ collection: 'families', url: 'http://10.0.0.1/' })).rejects.toBeInstanceOf(
      ValidationError,
    );
  });

  it('refuses body pairs that would replace the payload keys', async () => {
    const err = await ctx.service
      .create({
        collection: 'catalogs',
        body: [
          { key: 'ok', value: '1' },
          { key: 'data', value: 'x' },
          { key: 'type', value: 'y' },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).details!.map((d) => d.field)).toEqual(['body.1.key', 'body.2.key']);
  });

  it('refuses a body pair named __proto__, which no payload could carry, and keeps the ones named like its members', async () => {
    const err = await ctx.service
      .create({ collection: 'catalogs', body: [{ key: '__proto__', value: 'x' }] })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).details).toEqual([
      { field: 'body.0.key', message: 'the key __proto__ cannot be stored; rename it' },
    ]);
    const body = ['constructor', 'toString', 'hasOwnProperty'].map((key) => ({ key, value: key }));
    const { webhook } = await ctx.service.create({ collection: 'catalogs', body });
    expect(webhook.body).toEqual(body);
  });

  it('rotates the secret under If-Match, keeping the previous one for the overlap, with an event', async () => {
    const svc = new WebhookService(ctx.ds, { secrets: ctx.secrets, secretOverlapMs: 60_000 });
    const { webhook, secret } = await svc.create({ collection: 'channels', url: 'https://hooks.example.com/c' });
    await expect(svc.rotateSecret(webhook._id, 7)).rejects.toBeInstanceOf(PreconditionFailedError);
    const before = Date.now();
    const r = await svc.rotateSecret(webhook._id, 1);
    expect(r.secret).toMatch(/^whsec_/);
    expect(r.secret).not.toBe(secret);
    expect(r.webhook.version).toBe(2);
    expect(r.previousSecretExpiresAt.getTime()).toBeGreaterThanOrEqual(before + 60_000);
    const [row] = await ctx.ds.query('SELECT secret, previous_secret FROM webhooks.webhooks WHERE _id = $1', [
      webhook._id,
    ]);
    // Both stored sealed: the new one, and the previous one as it was stored.
    expect(ctx.secrets.open(row.secret)).toBe(r.secret);
    expect(ctx.secrets.open(row.previous_secret)).toBe(secret);
    expect(JSON.stringify(row)).not.toContain(r.secret.slice(6));
    expect(JSON.stringify(row)).not.toContain(secret.slice(6));
    const events: { type: string; envelope: unknown }[] = await ctx.ds.query(
      'SELECT type, envelope FROM webhooks.outbox ORDER BY occurred_at',
    );
    expect(events.map((e) => e.type)).toEqual(['webhooks.created', 'webhooks.updated']);
    expect(JSON.stringify(events)).not.toContain(r.secret.slice(6));
    await expect(svc.rotateSecret('6740a1b2c3d4e5f601234567')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('disables a gone webhook once, as a system change', async () => {
    const { webhook } = await ctx.newWebhook({ collection: 'exports' });
    expect(await ctx.service.disableGone(webhook._id)).toBe(true);
    expect(await ctx.service.disableGone(webhook._id)).toBe(false);
    expect(await ctx.service.get(webhook._id)).toMatchObject({ enabled: false, version: 2 });
  });
});
