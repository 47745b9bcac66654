import { join } from 'node:path';
import type { AppSpec } from './app-spec';
import {
  appEnvironment,
  appFiles,
  assignPorts,
  assignReplicaPorts,
  grpcTarget,
  replicaName,
  type SharedSettings,
} from './app-env';
import { firstNatsServer } from './nats';
import { redactUrl } from './postgres';

const apps: AppSpec[] = [
  {
    name: 'webhooks',
    kind: 'grpc',
    port: 50057,
    addressEnv: 'WEBHOOKS_GRPC_URL',
    portEnv: 'WEBHOOKS_GRPC_PORT',
    migrate: true,
  },
  { name: 'catalog', kind: 'grpc', port: 50051, addressEnv: 'CATALOG_GRPC_URL', portEnv: 'CATALOG_GRPC_PORT' },
  { name: 'gateway', kind: 'http', port: 8080, portEnv: 'PORT', env: { PUBLIC_URL: 'http://example.test' } },
];

const shared: SharedSettings = {
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/pim',
  natsUrl: 'nats://127.0.0.1:4222',
  eventsStream: 'PIM_EVENTS',
  subjectPrefix: '',
  logLevel: 'info',
  filesDir: '/data/files',
  metrics: false,
};

describe('assignPorts', () => {
  const noFree = () => Promise.reject(new Error('not asked'));

  it('uses each app’s default port unless its portEnv says otherwise', async () => {
    expect(await assignPorts(apps, undefined, { PORT: '9090' }, noFree)).toEqual({
      webhooks: 50057,
      catalog: 50051,
      gateway: 9090,
    });
  });

  it('hands out consecutive ports from a number', async () => {
    expect(await assignPorts(apps, 40000, { PORT: '9090' }, noFree)).toEqual({
      webhooks: 40000,
      catalog: 40001,
      gateway: 40002,
    });
  });

  it('asks for a free port per app and never hands one out twice', async () => {
    const offered = [41000, 41000, 41001, 41002];
    const ports = await assignPorts(apps, 'free', {}, async () => offered.shift()!);
    expect(ports).toEqual({ webhooks: 41000, catalog: 41001, gateway: 41002 });
  });

  it('rejects a port variable that is not a port, naming it', async () => {
    await expect(assignPorts(apps, undefined, { WEBHOOKS_GRPC_PORT: 'abc' }, noFree)).rejects.toThrow(
      'WEBHOOKS_GRPC_PORT="abc" is not a port (app webhooks)',
    );
  });

  it('rejects two apps on one port', async () => {
    await expect(assignPorts(apps, undefined, { PORT: '50051' }, noFree)).rejects.toThrow(
      'gateway and catalog would both use port 50051',
    );
  });
});

describe('appEnvironment', () => {
  const ports = { webhooks: 50057, catalog: 50051, gateway: 8080 };

  it('gives the gateway every gRPC address, its own port and its extras on top of the shared settings', () => {
    const env = appEnvironment(apps[2], apps, ports, shared, { PATH: '/bin', DATABASE_URL: 'postgres://elsewhere/x' });
    expect(env).toEqual({
      PATH: '/bin',
      DATABASE_URL: shared.databaseUrl,
      NATS_URL: shared.natsUrl,
      PIM_EVENTS_STREAM: 'PIM_EVENTS',
      PIM_SUBJECT_PREFIX: '',
      LOG_LEVEL: 'info',
      FILES_DIR: '/data/files',
      WEBHOOKS_GRPC_URL: '127.0.0.1:50057',
      CATALOG_GRPC_URL: '127.0.0.1:50051',
      PORT: '8080',
      PUBLIC_URL: 'http://example.test',
    });
  });

  it('gives a gRPC app its own port variable but not the other apps’ ports', () => {
    const env = appEnvironment(apps[0], apps, ports, shared, {});
    expect(env.WEBHOOKS_GRPC_PORT).toBe('50057');
    expect(env.CATALOG_GRPC_PORT).toBeUndefined();
    expect(env.PORT).toBeUndefined();
    expect(env.CATALOG_GRPC_URL).toBe('127.0.0.1:50051');
  });
});

describe('metrics ports', () => {
  const ports = { webhooks: 50057, catalog: 50051, gateway: 8080 };
  const withMetrics = apps.map((a, i) => ({ ...a, metrics: { env: `M${i}_METRICS_PORT`, port: 9464 + i } }));

  it('gives each app its default metrics port under npm start, none on free ports, and keeps a set one', () => {
    expect(appEnvironment(withMetrics[1], withMetrics, ports, { ...shared, metrics: true }, {}).M1_METRICS_PORT).toBe(
      '9465',
    );
    expect(appEnvironment(withMetrics[1], withMetrics, ports, shared, {}).M1_METRICS_PORT).toBe('0');
    expect(
      appEnvironment(withMetrics[1], withMetrics, ports, { ...shared, metrics: true }, { M1_METRICS_PORT: '9999' })
        .M1_METRICS_PORT,
    ).toBe('9999');
    expect(appEnvironment(withMetrics[1], withMetrics, ports, shared, {}).M0_METRICS_PORT).toBeUndefined();
  });
});

describe('appFiles', () => {
  it('follows the apps/<name>/src convention and keeps absolute overrides', () => {
    expect(appFiles(apps[0], '/repo')).toEqual({
      entry: join('/repo', 'apps/webhooks/src/main.ts'),
      migrate: join('/repo', 'apps/webhooks/src/migrate.ts'),
    });
    expect(appFiles({ ...apps[0], entry: '/x/main.ts', migrateEntry: 'y/m.ts' }, '/repo')).toEqual({
      entry: '/x/main.ts',
      migrate: '/repo/y/m.ts',
    });
  });
});

describe('small parsers', () => {
  it('takes host and port of the first NATS server', () => {
    expect(firstNatsServer('nats://10.0.0.1:4333,nats://10.0.0.2:4333')).toEqual({ host: '10.0.0.1', port: 4333 });
    expect(firstNatsServer('localhost')).toEqual({ host: 'localhost', port: 4222 });
  });

  it('hides the password of a database URL', () => {
    expect(redactUrl('postgres://postgres:secret@127.0.0.1:5433/pim')).toBe(
      'postgres://postgres:***@127.0.0.1:5433/pim',
    );
    expect(redactUrl('postgres://postgres@127.0.0.1:5432/pim')).toBe('postgres://postgres@127.0.0.1:5432/pim');
  });
});

describe('replicas', () => {
  it('gives extra replicas free ports that no app uses, and keeps the first replica’s port', async () => {
    const offered = [8080, 50100, 50051, 50101, 50102];
    const ports = await assignReplicaPorts(
      apps,
      (a) => (a.name === 'webhooks' ? 1 : 2),
      { webhooks: 50057, catalog: 50051, gateway: 8080 },
      async () => offered.shift()!,
    );
    expect(ports).toEqual({ webhooks: [50057], catalog: [50051, 50100], gateway: [8080, 50101] });
  });

  it('names replicas after their app and reaches all of them in one gRPC target', () => {
    expect([0, 1, 2].map((i) => replicaName('catalog', i))).toEqual(['catalog', 'catalog-2', 'catalog-3']);
    expect(grpcTarget(50051)).toBe('127.0.0.1:50051');
    expect(grpcTarget([50051])).toBe('127.0.0.1:50051');
    expect(grpcTarget([50051, 50100])).toBe('ipv4:127.0.0.1:50051,127.0.0.1:50100');
  });

  it('gives each replica its own port, every caller all replicas, and metrics to the first replica only', () => {
    const ports = { webhooks: [50057, 50200], catalog: [50051, 50201], gateway: [8080, 50202] };
    const withMetrics = apps.map((a, i) => ({ ...a, metrics: { env: `M${i}_METRICS_PORT`, port: 9464 + i } }));
    const second = appEnvironment(withMetrics[1], withMetrics, ports, { ...shared, metrics: true }, {}, 1);
    expect(second.CATALOG_GRPC_PORT).toBe('50201');
    expect(second.CATALOG_GRPC_URL).toBe('ipv4:127.0.0.1:50051,127.0.0.1:50201');
    expect(second.M1_METRICS_PORT).toBe('0');
    const first = appEnvironment(withMetrics[2], withMetrics, ports, { ...shared, metrics: true }, {}, 0);
    expect(first.PORT).toBe('8080');
    expect(first.M2_METRICS_PORT).toBe('9466');
    expect(first.WEBHOOKS_GRPC_URL).toBe('ipv4:127.0.0.1:50057,127.0.0.1:50200');
  });
});
