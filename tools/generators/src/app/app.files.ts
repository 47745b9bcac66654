import type { AppNames } from './names';

/** What the generated files say about the app. */
export interface AppFacts extends AppNames {
  port: number;
  description: string;
  /** Migration timestamp (ms) and the class name suffix it gives. */
  migrationTs: number;
}

/** apps/<name>/package.json */
export const packageJson = (a: AppFacts) =>
  `${JSON.stringify(
    {
      name: `@pim/${a.name}-app`,
      version: '0.1.0',
      private: true,
      description: `${a.description} (schema ${a.schema}, gRPC pim.${a.proto}.v1).`,
      main: 'src/main.ts',
      nx: { tags: ['type:app'] },
    },
    null,
    2,
  )}\n`;

/** apps/<name>/src/config.ts */
export const configTs = (a: AppFacts) => `import type { z } from 'zod';
import { loadConfig, ownerSchema, port } from '@pim/config';

/** Environment of the ${a.name} app. */
export const ${a.camel}ConfigSchema = ownerSchema.extend({
  ${a.env}_GRPC_PORT: port(${a.port}),
  /** Prometheus metrics on http://0.0.0.0:<port>/metrics; 0 (the default) turns them off. */
  ${a.env}_METRICS_PORT: port(0),
});

/** Parsed environment of the ${a.name} app. */
export type ${a.pascal}Config = z.infer<typeof ${a.camel}ConfigSchema>;

/** Reads and validates the environment once. */
export const readConfig = (env: NodeJS.ProcessEnv = process.env): ${a.pascal}Config =>
  loadConfig(${a.camel}ConfigSchema, env);
`;

/** apps/<name>/src/data-source.ts */
export const dataSourceTs = (a: AppFacts) => `import type { AppDataSourceOptions } from '@pim/db';
import { DeadLetter, OutboxEvent } from '@pim/events';
import { migrations } from './migrations';

/** This app's schema. */
export const SCHEMA = '${a.schema}';

/** Persistence of the ${a.name} app: its schema, entities and migrations. */
export function dataSourceOptions(url: string): AppDataSourceOptions {
  return {
    url,
    schema: SCHEMA,
    entities: [OutboxEvent, DeadLetter],
    migrations,
    applicationName: 'pim-${a.name}',
  };
}
`;

/** apps/<name>/src/app.ts */
export const appTs = (a: AppFacts) => `import type { AppSpec } from '@pim/app';
import { PROTO_FILES } from '@pim/contracts';
import { readConfig, type ${a.pascal}Config } from './config';
import { dataSourceOptions } from './data-source';

/** The ${a.name} app as the bootstrap runs it: it serves health (and reflection) until its first resource arrives. */
export const ${a.camel}App: AppSpec<${a.pascal}Config> = {
  name: '${a.name}',
  dir: __dirname,
  config: readConfig,
  dataSource: dataSourceOptions,
  grpc: { port: (c) => c.${a.env}_GRPC_PORT, protoFiles: [PROTO_FILES.${a.camel}] },
  metricsPort: (c) => c.${a.env}_METRICS_PORT,
  wire: () => ({ services: [] }),
};
`;

/** apps/<name>/src/main.ts */
export const mainTs = (a: AppFacts) => `import { runApp } from '@pim/app';
import { ${a.camel}App } from './app';

void runApp(${a.camel}App);
`;

/** apps/<name>/src/migrate.ts */
export const migrateTs = (a: AppFacts) => `import { migrateApp } from '@pim/app';
import { readConfig } from './config';
import { dataSourceOptions } from './data-source';

void migrateApp({ name: '${a.name}', dir: __dirname, config: readConfig, dataSource: dataSourceOptions });
`;

/** apps/<name>/src/migrations/<ts>-create-<name>-schema.ts (named after the schema, so the migration of a resource named like the app does not clash with it) */
export const firstMigrationTs = (a: AppFacts) => `import type { MigrationInterface, QueryRunner } from 'typeorm';
import {
  OUTBOX_DEAD_LETTERS_DOWN_SQL,
  OUTBOX_DEAD_LETTERS_UP_SQL,
  OUTBOX_DOWN_SQL,
  OUTBOX_ENVELOPE_AS_JSON_DOWN_SQL,
  OUTBOX_ENVELOPE_AS_JSON_UP_SQL,
  OUTBOX_UP_SQL,
} from '@pim/events';

/** The ${a.name} schema's first tables: the outbox its events wait in, its dead letters, and unaccent for \`_search\`. */
export class Create${a.pascal}Schema${a.migrationTs} implements MigrationInterface {
  name = 'Create${a.pascal}Schema${a.migrationTs}';

  async up(q: QueryRunner): Promise<void> {
    await q.query(\`CREATE EXTENSION IF NOT EXISTS unaccent WITH SCHEMA public\`);
    for (const sql of [...OUTBOX_UP_SQL, ...OUTBOX_ENVELOPE_AS_JSON_UP_SQL, ...OUTBOX_DEAD_LETTERS_UP_SQL])
      await q.query(sql);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const sql of [...OUTBOX_DEAD_LETTERS_DOWN_SQL, ...OUTBOX_ENVELOPE_AS_JSON_DOWN_SQL, ...OUTBOX_DOWN_SQL])
      await q.query(sql);
  }
}
`;

/** apps/<name>/src/migrations/index.ts */
export const migrationsIndexTs = (
  a: AppFacts,
) => `import { Create${a.pascal}Schema${a.migrationTs} } from './${a.migrationTs}-create-${a.name}-schema';

/** Every migration of the ${a.schema} schema, oldest first. */
export const migrations = [Create${a.pascal}Schema${a.migrationTs}];
`;

/** apps/<name>/src/app.int.spec.ts */
export const appSpecTs = (a: AppFacts) => `import { startApp } from '@pim/app';
import { migrate } from '@pim/db';
import { HealthChecker } from '@pim/rpc';
import { createTestDatabase, createTestStream, type TestDatabase, type TestStream } from '@pim/testing';
import { ${a.camel}App } from './app';
import { readConfig } from './config';
import { dataSourceOptions } from './data-source';
import { migrations } from './migrations';

// The app as it starts in production, against the real Postgres and NATS: migrations, bootstrap, health.
describe('${a.name} app', () => {
  let db: TestDatabase;
  let stream: TestStream;

  beforeAll(async () => {
    db = await createTestDatabase('${a.schema}');
    stream = await createTestStream('${a.schema}');
  });

  afterAll(async () => {
    await stream?.destroy();
    await db?.drop();
  });

  it('migrates its schema, starts through the bootstrap, serves health and shuts down', async () => {
    expect(await migrate(dataSourceOptions(db.url))).toHaveLength(migrations.length);
    const env = {
      DATABASE_URL: db.url,
      NATS_URL: stream.url,
      PIM_EVENTS_STREAM: stream.name,
      PIM_SUBJECT_PREFIX: stream.subjectPrefix,
      ${a.env}_GRPC_PORT: '0',
      LOG_LEVEL: 'silent',
    };
    let exited: number | undefined;
    const app = await startApp(
      { ...${a.camel}App, config: () => readConfig(env) },
      { signals: false, exit: (code) => (exited = code) },
    );
    const health = new HealthChecker(\`127.0.0.1:\${app.port}\`);
    try {
      expect(await health.check()).toBe('SERVING');
      await app.shutdown.run('test');
      expect(exited).toBe(0);
      expect(app.context.ds.isInitialized).toBe(false);
    } finally {
      health.close();
    }
  });
});
`;

/** protos/pim/<proto>/v1/<proto>.proto */
export const protoFile = (a: AppFacts) => `syntax = "proto3";

package pim.${a.proto}.v1;

// The ${a.name} app's contract. It has no service yet: the app serves grpc.health.v1 and
// reflection until its first resource arrives; each resource adds its service and messages here.
`;

/** deploy/k8s/base/<name>.yaml */
export const k8sYaml = (
  a: AppFacts,
) => `# The ${a.name} app: gRPC on ${a.port} (${a.env}_GRPC_PORT), metrics on 9464 (${a.env}_METRICS_PORT).
# Called by the gateway (its ${a.env}_GRPC_URL); add each app that calls it here and in the NetworkPolicy.
apiVersion: v1
kind: ServiceAccount
metadata:
  name: ${a.name}
automountServiceAccountToken: false
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: ${a.name}-config
data:
  # Background work any replica may take; turn off on replicas that should only serve.
  OUTBOX_RELAY: 'true'
---
# Migrations of the schema \`${a.schema}\`: run and complete before the Deployment rolls (docs/deploy.md).
apiVersion: batch/v1
kind: Job
metadata:
  name: ${a.name}-migrate
  labels: { app.kubernetes.io/name: ${a.name}-migrate, app.kubernetes.io/component: migrate }
spec:
  backoffLimit: 3
  activeDeadlineSeconds: 900
  template:
    metadata:
      labels: { app.kubernetes.io/name: ${a.name}-migrate, app.kubernetes.io/component: migrate }
    spec:
      restartPolicy: Never
      serviceAccountName: ${a.name}
      automountServiceAccountToken: false
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        runAsGroup: 1000
        seccompProfile: { type: RuntimeDefault }
      containers:
        - name: migrate
          image: pim-platform
          args: ['migrate']
          env:
            - { name: APP, value: ${a.name} }
            - name: DATABASE_URL
              valueFrom: { secretKeyRef: { name: pim-db-app, key: uri } }
          envFrom:
            - configMapRef: { name: pim-platform }
            - configMapRef: { name: ${a.name}-config }
          resources:
            requests: { cpu: 50m, memory: 128Mi }
            limits: { memory: 384Mi }
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities: { drop: [ALL] }
          volumeMounts:
            - { name: tmp, mountPath: /tmp }
      volumes:
        - name: tmp
          emptyDir: { sizeLimit: 64Mi }
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${a.name}
  labels: { app.kubernetes.io/name: ${a.name}, app.kubernetes.io/component: server }
spec:
  # No replicas: the HorizontalPodAutoscaler \`${a.name}\` owns the count (overlays set its bounds).
  revisionHistoryLimit: 5
  strategy:
    rollingUpdate: { maxSurge: 1, maxUnavailable: 0 }
  selector:
    matchLabels: { app.kubernetes.io/name: ${a.name} }
  template:
    metadata:
      labels: { app.kubernetes.io/name: ${a.name}, app.kubernetes.io/component: server }
      annotations:
        prometheus.io/scrape: 'true'
        prometheus.io/port: '9464'
        prometheus.io/path: /metrics
    spec:
      serviceAccountName: ${a.name}
      automountServiceAccountToken: false
      # preStop sleep (endpoints drop the pod first) + the app's ordered shutdown (SHUTDOWN_GRACE_MS
      # for calls in flight, then loops, relay, NATS, database).
      terminationGracePeriodSeconds: 40
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        runAsGroup: 1000
        seccompProfile: { type: RuntimeDefault }
      topologySpreadConstraints:
        - maxSkew: 1
          topologyKey: kubernetes.io/hostname
          whenUnsatisfiable: ScheduleAnyway
          labelSelector:
            matchLabels: { app.kubernetes.io/name: ${a.name} }
      containers:
        - name: ${a.name}
          image: pim-platform
          env:
            - { name: APP, value: ${a.name} }
            - { name: ${a.env}_GRPC_PORT, value: '${a.port}' }
            - { name: ${a.env}_METRICS_PORT, value: '9464' }
            - name: DATABASE_URL
              valueFrom: { secretKeyRef: { name: pim-db-app, key: uri } }
            - name: NATS_URL
              valueFrom: { secretKeyRef: { name: pim-platform, key: NATS_URL } }
          envFrom:
            - configMapRef: { name: pim-platform }
            - configMapRef: { name: ${a.name}-config }
          ports:
            - { name: grpc, containerPort: ${a.port}, protocol: TCP }
            - { name: metrics, containerPort: 9464, protocol: TCP }
          # gRPC only listens once the database, NATS (with retries) and the loops are up.
          startupProbe:
            grpc: { port: ${a.port} }
            periodSeconds: 5
            failureThreshold: 60
          readinessProbe:
            grpc: { port: ${a.port} }
            periodSeconds: 5
            failureThreshold: 2
          livenessProbe:
            grpc: { port: ${a.port} }
            periodSeconds: 10
            timeoutSeconds: 3
            failureThreshold: 6
          lifecycle:
            preStop:
              sleep: { seconds: 5 }
          resources:
            requests: { cpu: 100m, memory: 128Mi }
            limits: { memory: 384Mi }
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            capabilities: { drop: [ALL] }
          volumeMounts:
            # @swc-node/register keeps its compile cache in the temporary directory.
            - { name: tmp, mountPath: /tmp }
      volumes:
        - name: tmp
          emptyDir: { sizeLimit: 256Mi }
---
apiVersion: v1
kind: Service
metadata:
  name: ${a.name}
  labels: { app.kubernetes.io/name: ${a.name} }
spec:
  selector: { app.kubernetes.io/name: ${a.name} }
  ports:
    - { name: grpc, port: ${a.port}, targetPort: grpc, protocol: TCP, appProtocol: grpc }
---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: ${a.name}
spec:
  maxUnavailable: 1
  unhealthyPodEvictionPolicy: AlwaysAllow
  selector:
    matchLabels: { app.kubernetes.io/name: ${a.name} }
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: ${a.name}
spec:
  scaleTargetRef: { apiVersion: apps/v1, kind: Deployment, name: ${a.name} }
  minReplicas: 2
  maxReplicas: 4
  metrics:
    - type: Resource
      resource:
        name: cpu
        target: { type: Utilization, averageUtilization: 70 }
  behavior:
    scaleDown:
      stabilizationWindowSeconds: 300
---
# Who may reach ${a.name}: its callers on gRPC, the monitoring namespace on metrics. Nothing else.
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: ${a.name}
spec:
  podSelector:
    matchLabels: { app.kubernetes.io/name: ${a.name} }
  policyTypes: [Ingress]
  ingress:
    - from:
        - podSelector: { matchLabels: { app.kubernetes.io/name: gateway } }
      ports:
        - { port: grpc, protocol: TCP }
    - from:
        - namespaceSelector: { matchLabels: { kubernetes.io/metadata.name: monitoring } }
      ports:
        - { port: metrics, protocol: TCP }
`;

/** docs/apps/<name>.md */
export const appDoc = (a: AppFacts) => `# ${a.name} app

${a.description} Postgres schema \`${a.schema}\`, gRPC package \`pim.${a.proto}.v1\`
(\`protos/pim/${a.proto}/v1/${a.proto}.proto\`).

| | |
| --- | --- |
| Tables | \`${a.schema}.outbox\` (events not yet on NATS), \`${a.schema}.dead_letters\` (events set aside after every try failed), \`${a.schema}.migrations\` |
| RPCs | none yet; \`grpc.health.v1\` and reflection on port ${a.port} (\`${a.env}_GRPC_PORT\`) |
| Events | none yet; each resource's writes will publish \`pim.${a.name}.<collection>.<action>\` through the outbox |
| Entry points | \`src/main.ts\` (serve, through \`runApp\` of \`@pim/app\`), \`src/migrate.ts\` (run migrations, exit) |
| Configuration | \`${a.env}_GRPC_PORT\` (default ${a.port}), \`${a.env}_METRICS_PORT\` (0: no \`/metrics\`), and what every owner reads (\`DATABASE_URL\`, \`NATS_URL\`, \`OUTBOX_RELAY\`…) |

Generated by \`npx nx g @pim/generators:app ${a.name}\`; see \`docs/platform/add-a-resource.md\` for its first resource.
`;
