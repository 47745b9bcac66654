import type { DataSource } from 'typeorm';
import { ConflictError, ValidationError } from '@pim/errors';
import { createDataSource, migrate } from '@pim/db';
import { AddressPolicy } from '@pim/outbound';
import { RecordService } from '@pim/records';
import { newSecretsKey, parseSecretsKeys, sealedKeyId } from '@pim/secrets';
import { createTestDatabase, type TestDatabase } from '@pim/testing';
import { dataSourceOptions } from '../data-source';
import { ChannelEntity } from '../entities/channel.entity';
import { PUBLISHER_STORE } from '../publisher.records';
import { loopbackPolicy } from '../testing/publisher.context';
import { channelRecord } from './channel.resource';

const TOKEN = 'Bearer 0123456789abcdef';

// Channels on the record engine against the real Postgres: credentials masked, the address policy, the mapping's rules.
describe('channels (real Postgres)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  const policy = new AddressPolicy([], { subject: 'channels', setting: 'PUBLISHER_ALLOWED_TARGETS' });
  const secrets = parseSecretsKeys(newSecretsKey('test-1'));

  beforeAll(async () => {
    db = await createTestDatabase('channels');
    await migrate(dataSourceOptions(db.url));
    ds = createDataSource(dataSourceOptions(db.url));
    await ds.initialize();
  });

  afterAll(async () => {
    await ds?.destroy();
    await db?.drop();
  });

  const service = (p = policy) => new RecordService(ds, channelRecord(p, secrets), PUBLISHER_STORE);
  const endpoint = { url: 'https://shop.example.com/listings', headers: [{ key: 'Authorization', value: TOKEN }] };

  it('stores credentials sealed, shows them masked, and keeps them when the mask is written back', async () => {
    const s = service();
    const created = await s.create({ code: 'shop', name: 'Shop', endpoint });
    expect(created).toMatchObject({
      code: 'shop',
      enabled: true,
      kind: 'http',
      auto_republish: false,
      mapping: [],
      required_attributes: [],
      endpoint: {
        url: endpoint.url,
        method: 'POST',
        timeout_ms: 10_000,
        headers: [{ key: 'Authorization', value: '****cdef' }],
      },
    });
    expect(JSON.stringify(await ds.query(`SELECT envelope FROM outbox`))).not.toContain(TOKEN);
    const row = async () => (await ds.getRepository(ChannelEntity).findOneByOrFail({ _id: created._id })).endpoint;
    // As stored: sealed with the operator key (never the token's text); opened, the token as written.
    const stored = async () => {
      const endpoint = await row();
      expect(JSON.stringify(endpoint)).not.toContain('0123456789abcdef');
      expect(endpoint.headers.map((h) => sealedKeyId(h.value))).toEqual(['test-1']);
      return { ...endpoint, headers: endpoint.headers.map((h) => ({ key: h.key, value: secrets.open(h.value) })) };
    };
    expect((await stored()).headers).toEqual([{ key: 'Authorization', value: TOKEN }]);

    // A caller reads the channel and writes it back with another name: the token stays.
    const { _id, version, created_at, updated_at, ...writable } = created;
    await s.replace(_id, { ...writable, name: 'Web shop' }, version);
    expect(created_at <= updated_at).toBe(true);
    expect((await stored()).headers).toEqual([{ key: 'Authorization', value: TOKEN }]);
    await s.patch(created._id, {
      endpoint: { ...endpoint, headers: [{ key: 'Authorization', value: 'Bearer new-token-value' }] },
    });
    expect((await stored()).headers).toEqual([{ key: 'Authorization', value: 'Bearer new-token-value' }]);
    await expect(s.create({ code: 'shop', name: 'Again', endpoint })).rejects.toBeInstanceOf(ConflictError);
  });

  it('refuses an endpoint on a private or loopback address unless the operator allows the range', async () => {
    for (const url of ['http://127.0.0.1:8080/x', 'http://10.0.0.5/x', 'http://localhost/x', 'http://[::1]/x']) {
      const err = await service()
        .create({ code: `c${Math.random().toString(36).slice(2, 8)}`, name: 'Private', endpoint: { url } })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).details).toEqual([
        {
          field: 'endpoint.url',
          message: expect.stringContaining(
            'channels only reach public addresses unless PUBLISHER_ALLOWED_TARGETS allows it',
          ),
        },
      ]);
    }
    await expect(
      service(loopbackPolicy()).create({ code: 'local', name: 'Local', endpoint: { url: 'http://127.0.0.1:8080/x' } }),
    ).resolves.toMatchObject({ code: 'local' });
  });

  it('refuses a mapping whose fields overlap or whose source is no product field', async () => {
    const err = await service()
      .create({
        code: 'mapped',
        name: 'Mapped',
        endpoint,
        mapping: [
          { field: 'offer', source: 'code' },
          { field: 'offer.price', source: 'attributes.price.amount' },
          { field: 'title', source: 'nonsense' },
        ],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).message).toContain('offer and offer.price overlap');
    expect((err as ValidationError).message).toContain('must start with attributes.<key> or a product field');
  });
});
