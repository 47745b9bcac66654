// Checks of the example manifests for what the platform runs on: the CloudNativePG Cluster and the
// NATS Helm chart's values (deploy/k8s/examples). Neither has a schema here (a CRD and a chart's
// values), so these check the shape the platform needs, nothing more. Pure, like checks.ts.
import {
  type Deployment,
  type HorizontalPodAutoscaler,
  type K8sObject,
  type NetworkPolicy,
  type Problem,
  ofKind,
} from './objects';

/**
 * Postgres connections one pod of each app may hold at most (estimates read from the code): its
 * TypeORM pool (libs/db: 10 unless the app sets poolSize), other pools, and the one LISTEN
 * connection its listeners share (libs/db PgListener: the outbox relay, the workers).
 */
export const CONNECTIONS_PER_POD: Record<string, number> = {
  gateway: 20 + 10 + 1, // poolSize 20 (data-source.ts), rate-limit pool 10 (main.ts), LISTEN (API keys)
  catalog: 10 + 1, // LISTEN (relay, completeness worker)
  workflow: 10 + 1, // LISTEN (relay, product approval applier)
  orders: 10 + 1, // LISTEN (relay)
  'io-jobs': 10 + 3 + 1, // pg-boss pool 3 (jobs/job.queue.ts), LISTEN (relay)
  publisher: 10 + 1, // LISTEN (relay, sender, publication batches)
  webhooks: 16 + 4 + 1, // poolSize 16 (app.ts), delivery claim pool 4, LISTEN (relay, delivery worker)
};
/** A migration Job: schema creation, the advisory lock, a pool of 2 (libs/db migrate). */
const CONNECTIONS_PER_MIGRATION = 4;
/** Postgres's superuser_reserved_connections, and CloudNativePG's own (instance manager, replication). */
const CONNECTIONS_RESERVED = 3 + 10;

/**
 * Connections the platform may open at once: every app at its autoscaler's maximum plus one pod
 * surging during a roll-out, every migration Job, and the server's reserved ones.
 */
export function connectionBudget(objects: K8sObject[]): number {
  let total = CONNECTIONS_RESERVED;
  for (const hpa of ofKind<HorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler')) {
    const app = hpa.spec.scaleTargetRef.name;
    const deployment = ofKind<Deployment>(objects, 'Deployment').find((d) => d.metadata.name === app);
    const surge = (deployment?.spec as { strategy?: { rollingUpdate?: { maxSurge?: unknown } } })?.strategy
      ?.rollingUpdate?.maxSurge;
    const perPod = CONNECTIONS_PER_POD[app] ?? 10 + 3;
    total += perPod * (hpa.spec.maxReplicas + (typeof surge === 'number' ? surge : 1));
  }
  total += ofKind(objects, 'Job').length * CONNECTIONS_PER_MIGRATION;
  return total;
}

/** The lowest Postgres major version the platform runs on (CI: 15; pg-boss 12 needs 13 or later). */
export const POSTGRES_MIN_MAJOR = 15;

interface ClusterSpec {
  instances?: number;
  imageName?: string;
  postgresql?: { parameters?: Record<string, string> };
  bootstrap?: { initdb?: { database?: string; owner?: string; postInitApplicationSQL?: string[] } };
  storage?: { size?: string };
}

/**
 * The CloudNativePG Cluster: its application secret (`<name>-app`, key `uri`) is the one the apps'
 * DATABASE_URL reads; it creates the extensions the migrations need as the superuser (the apps'
 * owner could create these trusted ones too, but seven migration Jobs racing to create one
 * extension fail on its unique name); a supported Postgres; a standby; room for every connection.
 */
export function checkPostgresCluster(
  objects: K8sObject[],
  needs: { databaseSecret: { name: string; key: string }; extensions: string[]; connections: number },
): Problem[] {
  const clusters = objects.filter((o) => o.apiVersion === 'postgresql.cnpg.io/v1' && o.kind === 'Cluster');
  if (clusters.length !== 1)
    return [{ where: 'postgres-cluster.yaml', message: 'holds no single postgresql.cnpg.io/v1 Cluster' }];
  const cluster = clusters[0];
  const where = `Cluster/${cluster.metadata.name}`;
  const spec = (cluster.spec ?? {}) as ClusterSpec;
  const problems: Problem[] = [];
  const secret = `${cluster.metadata.name}-app`;
  if (needs.databaseSecret.name !== secret || needs.databaseSecret.key !== 'uri') {
    problems.push({
      where,
      message: `the apps read DATABASE_URL from Secret ${needs.databaseSecret.name} key ${needs.databaseSecret.key}; this cluster writes ${secret} key uri`,
    });
  }
  const initdb = spec.bootstrap?.initdb;
  if (!initdb?.database || !initdb.owner)
    problems.push({ where, message: 'bootstrap.initdb names no database or owner' });
  const created = new Set(
    (initdb?.postInitApplicationSQL ?? []).flatMap((sql) =>
      [...sql.matchAll(/CREATE EXTENSION IF NOT EXISTS "?(\w+)"?/gi)].map((m) => m[1].toLowerCase()),
    ),
  );
  const missing = needs.extensions.filter((e) => !created.has(e));
  if (missing.length > 0)
    problems.push({ where, message: `postInitApplicationSQL does not create ${missing.join(', ')}` });
  const major = Number(/:(\d+)/.exec(spec.imageName ?? '')?.[1]);
  if (!(major >= POSTGRES_MIN_MAJOR))
    problems.push({ where, message: `imageName ${spec.imageName} is not Postgres ${POSTGRES_MIN_MAJOR} or later` });
  if (!((spec.instances ?? 1) >= 2)) problems.push({ where, message: 'one instance: no standby to fail over to' });
  if (!spec.storage?.size) problems.push({ where, message: 'storage.size is not set' });
  const maxConnections = Number(spec.postgresql?.parameters?.max_connections ?? 100);
  if (maxConnections < needs.connections) {
    problems.push({
      where,
      message: `max_connections ${maxConnections} < ${needs.connections} the prod overlay may open (tools/deploy/examples.ts)`,
    });
  }
  return problems;
}

/** The lowest NATS server the platform's consumers fully use (several filter subjects on one consumer). */
export const NATS_MIN_VERSION = [2, 10] as const;

interface NatsValues {
  config?: {
    jetstream?: {
      enabled?: boolean;
      fileStore?: { enabled?: boolean; pvc?: { enabled?: boolean; size?: string } };
    };
    merge?: { authorization?: unknown; accounts?: unknown };
  };
  container?: { image?: { tag?: string } };
}

/**
 * The NATS chart's values: JetStream on, on files kept in a volume (the apps create the stream
 * `stream` on `subjects` with file storage, libs/events), a server recent enough, and no client
 * authentication: the apps connect with NATS_URL alone, and the NATS client (nats.js v3) takes no
 * credentials from a URL, so a server that asks for them would refuse every app.
 */
export function checkNatsValues(raw: unknown, stream: { stream: string; subjects: string[] }): Problem[] {
  const values = (raw ?? {}) as NatsValues;
  const where = 'nats-values.yaml';
  const problems: Problem[] = [];
  const js = values.config?.jetstream;
  if (js?.enabled !== true)
    problems.push({ where, message: `config.jetstream.enabled is not true: no ${stream.stream} stream` });
  if (js?.fileStore?.enabled === false || js?.fileStore?.pvc?.enabled === false || !js?.fileStore?.pvc?.size) {
    problems.push({
      where,
      message: `${stream.stream} (${stream.subjects.join(', ')}) is file storage: keep it in a volume (config.jetstream.fileStore.pvc)`,
    });
  }
  const [major, minor] = (values.container?.image?.tag ?? '').split(/[.-]/).map(Number);
  const [wantMajor, wantMinor] = NATS_MIN_VERSION;
  if (!(major > wantMajor || (major === wantMajor && minor >= wantMinor))) {
    problems.push({
      where,
      message: `container.image.tag ${values.container?.image?.tag} is older than ${NATS_MIN_VERSION.join('.')}`,
    });
  }
  if (values.config?.merge?.authorization || values.config?.merge?.accounts) {
    problems.push({
      where,
      message: 'asks clients to authenticate, which the apps cannot (NATS_URL only): docs/deploy.md, NATS',
    });
  }
  return problems;
}

/**
 * The NATS NetworkPolicy: the client port is open to exactly the apps that connect to NATS (those
 * whose Deployment sets NATS_URL), besides NATS's own pods (the NATS box).
 */
export function checkNatsNetworkPolicy(objects: K8sObject[], rendered: K8sObject[]): Problem[] {
  const np = ofKind<NetworkPolicy>(objects, 'NetworkPolicy')[0];
  if (!np) return [{ where: 'nats-network-policy.yaml', message: 'holds no NetworkPolicy' }];
  const users = ofKind<Deployment>(rendered, 'Deployment')
    .filter((d) => d.spec.template.spec.containers.some((c) => (c.env ?? []).some((e) => e.name === 'NATS_URL')))
    .map((d) => d.metadata.name)
    .sort();
  const allowed = new Set<string>();
  for (const rule of np.spec.ingress ?? []) {
    if (!(rule.ports ?? []).some((p) => p.port === 4222)) continue;
    for (const peer of rule.from ?? []) {
      if (peer.namespaceSelector || peer.ipBlock) allowed.add('(other namespaces or addresses)');
      const selector = peer.podSelector ?? {};
      const name = selector.matchLabels?.['app.kubernetes.io/name'];
      if (name) allowed.add(name);
      for (const e of (selector.matchExpressions ?? []) as { key: string; operator: string; values?: string[] }[]) {
        if (e.key === 'app.kubernetes.io/name' && e.operator === 'In') (e.values ?? []).forEach((v) => allowed.add(v));
      }
    }
  }
  const show = (names: Iterable<string>) => [...names].sort().join(', ');
  return show(allowed) === show(users)
    ? []
    : [
        {
          where: `NetworkPolicy/${np.metadata.name}`,
          message: `lets ${show(allowed)} reach NATS; the apps that use it are ${show(users)}`,
        },
      ];
}
