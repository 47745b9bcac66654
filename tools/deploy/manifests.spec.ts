import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { EVENTS_STREAM, EVENTS_SUBJECTS } from '@pim/events';
import { TRACING_VARIABLES } from '@pim/logging';
import { type AppFacts, extensionsInMigrations, loadAppFacts } from './apps';
import {
  EXTERNAL_SECRETS,
  checkEnv,
  checkImages,
  checkInventory,
  checkManifests,
  checkNetworkPolicies,
  checkPorts,
  checkProbes,
  checkScaling,
  checkSecurity,
  checkTracing,
  format,
} from './checks';
import { checkNatsNetworkPolicy, checkNatsValues, checkPostgresCluster, connectionBudget } from './examples';
import {
  type ConfigMap,
  type Container,
  type Deployment,
  type K8sObject,
  type NetworkPolicy,
  type Service,
  clone,
  ofKind,
} from './objects';
import { OVERLAYS, type Overlay, ROOT, readYamlFile, renderOverlay } from './render';
import { validateSchemas } from './schemas';

// `kustomize build` of each overlay (kustomize 4.5.4, pinned), then: the Kubernetes v1.36 API
// schemas (kubernetes-models 5.1.0, pinned; strict about unknown fields), and the checks against
// the apps' own configuration (tools/deploy/checks.ts). Negative tests feed mutated copies.
let apps: AppFacts[];
const rendered = {} as Record<Overlay, K8sObject[]>;

beforeAll(async () => {
  const [facts, ...objects] = await Promise.all([loadAppFacts(), ...OVERLAYS.map(renderOverlay)]);
  apps = facts;
  OVERLAYS.forEach((overlay, i) => (rendered[overlay] = objects[i]));
});

const copy = (overlay: Overlay = 'prod') => clone(rendered[overlay]);
const named = <T extends K8sObject>(objects: K8sObject[], kind: T['kind'], name: string): T => {
  const found = ofKind<T>(objects, kind).find((o) => o.metadata.name === name);
  if (!found) throw new Error(`${kind}/${name} is not rendered`);
  return found;
};
const containerOf = (objects: K8sObject[], app: string): Container =>
  named<Deployment>(objects, 'Deployment', app).spec.template.spec.containers[0];

describe('the apps, read from their code', () => {
  it('are the seven apps, with who calls whom as their configs read it', () => {
    expect(apps.map((a) => a.name)).toEqual([
      'catalog',
      'gateway',
      'io-jobs',
      'orders',
      'publisher',
      'webhooks',
      'workflow',
    ]);
    const calls = Object.fromEntries(apps.map((a) => [a.name, a.calls]));
    expect(calls).toEqual({
      gateway: ['catalog', 'io-jobs', 'orders', 'publisher', 'webhooks', 'workflow'],
      catalog: ['workflow'],
      workflow: ['catalog', 'orders'],
      orders: ['workflow'],
      'io-jobs': ['catalog', 'workflow'],
      publisher: ['catalog'],
      webhooks: [],
    });
  });
});

describe.each(OVERLAYS)('overlays/%s', (overlay) => {
  it('validates against the Kubernetes API schemas (v1.36, strict)', async () => {
    expect(await validateSchemas(rendered[overlay])).toEqual([]);
  });

  it('has every app, its ports, probes, image, settings, security, scaling and network policy right', () => {
    expect(format(checkManifests(rendered[overlay], apps))).toEqual([]);
  });
});

describe('a broken manifest fails the check', () => {
  it('a container port that is not the app’s port', () => {
    const objects = copy();
    containerOf(objects, 'catalog').ports![0].containerPort = 50052;
    expect(format(checkPorts(objects, apps))).toEqual([
      'Deployment/catalog: port grpc is 50052 but the app listens on 50051 (CATALOG_GRPC_PORT)',
      'Service/catalog: no port reaches the grpc port 50051 of catalog',
    ]);
  });

  it('a port setting that moves the app away from its container port and probes', () => {
    const objects = copy();
    const env = containerOf(objects, 'orders').env!;
    env.find((e) => e.name === 'ORDERS_GRPC_PORT')!.value = '6000';
    const problems = format([...checkPorts(objects, apps), ...checkProbes(objects, apps)]);
    expect(problems).toContain('Deployment/orders: port grpc is 50059 but the app listens on 6000 (ORDERS_GRPC_PORT)');
    expect(problems).toContain('Deployment/orders: readinessProbe checks port 50059, the app serves gRPC on 6000');
  });

  it('a gRPC app behind a ClusterIP Service, which pins each caller to one pod', () => {
    const objects = copy();
    delete named<Service>(objects, 'Service', 'orders').spec!.clusterIP;
    expect(format(checkPorts(objects, apps))).toEqual([
      'Service/orders: is not headless (clusterIP: None): each caller of orders would send all its calls to one pod',
    ]);
  });

  it('a caller pointed at the wrong port', () => {
    const objects = copy();
    named<ConfigMap>(objects, 'ConfigMap', 'pim-platform').data!.WORKFLOW_GRPC_URL = 'workflow:50051';
    const problems = format(checkPorts(objects, apps));
    expect(problems).toContain(
      'Deployment/catalog: WORKFLOW_GRPC_URL=workflow:50051, but workflow answers at workflow:50058',
    );
    expect(problems).toHaveLength(4); // gateway, catalog, orders and io-jobs call workflow
  });

  it('a missing readiness probe, and an HTTP probe on a gRPC app', () => {
    const objects = copy();
    delete containerOf(objects, 'workflow').readinessProbe;
    containerOf(objects, 'webhooks').livenessProbe = { httpGet: { path: '/healthz', port: 9464 } };
    expect(format(checkProbes(objects, apps))).toEqual([
      'Deployment/webhooks: livenessProbe is not a grpc.health.v1 probe',
      'Deployment/workflow: container workflow has no readinessProbe',
    ]);
  });

  it('a gateway probe on the wrong path', () => {
    const objects = copy();
    containerOf(objects, 'gateway').readinessProbe!.httpGet!.path = '/healthz';
    expect(format(checkProbes(objects, apps))).toEqual([
      'Deployment/gateway: readinessProbe GETs /healthz, not /readyz',
    ]);
  });

  it('an app without its manifests', () => {
    const objects = copy().filter((o) => !(o.kind === 'HorizontalPodAutoscaler' && o.metadata.name === 'publisher'));
    expect(format(checkInventory(objects, apps))).toEqual(['app publisher: has no HorizontalPodAutoscaler publisher']);
  });

  it('a setting an app reads that nobody set, a typo, and a value the app refuses', () => {
    const objects = copy();
    const cm = named<ConfigMap>(objects, 'ConfigMap', 'io-jobs-config').data!;
    delete cm.FILES_DIR;
    cm.IMPORT_CONCURENCY = '4';
    cm.EXPORT_CONCURRENCY = 'many';
    const problems = format(checkEnv(objects, apps));
    expect(problems).toContain(
      'Deployment/io-jobs: io-jobs reads FILES_DIR: set it, or add it to DEFAULTED with the reason',
    );
    expect(problems).toContain('Deployment/io-jobs: IMPORT_CONCURENCY is set but io-jobs does not read it');
    expect(problems.some((p) => p.startsWith('Deployment/io-jobs: io-jobs would refuse EXPORT_CONCURRENCY'))).toBe(
      true,
    );
  });

  it('a secret that is not one of the documented external ones', () => {
    const objects = copy();
    const env = containerOf(objects, 'orders').env!;
    env.find((e) => e.name === 'DATABASE_URL')!.valueFrom!.secretKeyRef!.key = 'url';
    const problems = format(checkEnv(objects, apps));
    expect(problems).toContain(
      'Deployment/orders: DATABASE_URL reads Secret pim-db-app key url, which is not a known external secret (EXTERNAL_SECRETS, docs/deploy.md)',
    );
    expect(problems).toContain('Job/orders-migrate: DATABASE_URL is not the one Deployment/orders uses');
  });

  it('a network policy that lets a non-caller reach a gRPC port, or misses a caller', () => {
    const objects = copy();
    const np = named<NetworkPolicy>(objects, 'NetworkPolicy', 'orders');
    np.spec.ingress![0].from!.push({ podSelector: { matchLabels: { 'app.kubernetes.io/name': 'publisher' } } });
    named<NetworkPolicy>(objects, 'NetworkPolicy', 'catalog').spec.ingress![0].from!.shift();
    expect(format(checkNetworkPolicies(objects, apps))).toEqual([
      'NetworkPolicy/catalog: lets app:io-jobs, app:publisher, app:workflow reach gRPC port 50051; its callers are app:gateway, app:io-jobs, app:publisher, app:workflow',
      'NetworkPolicy/orders: lets app:gateway, app:publisher, app:workflow reach gRPC port 50059; its callers are app:gateway, app:workflow',
    ]);
  });

  it('a rule without ports opens the metrics and gRPC ports to its peers', () => {
    const objects = copy();
    delete named<NetworkPolicy>(objects, 'NetworkPolicy', 'webhooks').spec.ingress![1].ports;
    expect(format(checkNetworkPolicies(objects, apps))).toEqual([
      'NetworkPolicy/webhooks: lets app:gateway, namespace:{"kubernetes.io/metadata.name":"monitoring"} reach gRPC port 50057; its callers are app:gateway',
    ]);
  });

  it('two images, and an unpinned one', () => {
    const objects = copy();
    containerOf(objects, 'publisher').image = 'pim-platform:latest';
    const problems = format(checkImages(objects, apps));
    expect(problems[0]).toMatch(/^images: several images: /);
    expect(problems).toContain('images: pim-platform:latest is not pinned (tag or digest)');
  });

  it('a writable root filesystem, a missing /tmp volume, files outside any volume', () => {
    const objects = copy();
    const gateway = containerOf(objects, 'gateway');
    gateway.securityContext!.readOnlyRootFilesystem = false;
    gateway.volumeMounts = [];
    named<ConfigMap>(objects, 'ConfigMap', 'io-jobs-config').data!.FILES_DIR = '/srv/pim/files';
    expect(format(checkSecurity(objects, apps))).toEqual([
      'Deployment/gateway:gateway: readOnlyRootFilesystem is not true',
      'Deployment/gateway:gateway: has no writable volume at /tmp (the root filesystem is read-only)',
      'Deployment/io-jobs:io-jobs: FILES_DIR=/srv/pim/files is not on a writable volume',
    ]);
  });

  it('replicas on a Deployment its autoscaler owns, and a budget that blocks drains', () => {
    const objects = copy();
    named<Deployment>(objects, 'Deployment', 'catalog').spec.replicas = 2;
    const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget' && o.metadata.name === 'orders')!;
    (pdb as unknown as { spec: Record<string, unknown> }).spec = {
      ...(pdb as unknown as { spec: Record<string, unknown> }).spec,
      maxUnavailable: undefined,
      minAvailable: 2,
    };
    expect(format(checkScaling(objects, apps))).toEqual([
      'Deployment/catalog: sets replicas, which every apply would reset under its HorizontalPodAutoscaler: set the HPA bounds instead',
      'PodDisruptionBudget/orders: minAvailable 2 blocks every drain at the HPA minimum 2',
    ]);
  });

  it('a broken object fails the schema validation (wrong type, unknown field, removed API version)', async () => {
    const objects = copy();
    const catalog = containerOf(objects, 'catalog') as Container & Record<string, unknown>;
    (catalog.ports![0] as unknown as Record<string, unknown>).containerPort = 'grpc';
    catalog.readinesProbe = catalog.readinessProbe;
    delete catalog.readinessProbe;
    const pdb = objects.find((o) => o.kind === 'PodDisruptionBudget')!;
    pdb.apiVersion = 'policy/v1beta1';
    const service = named<Service>(objects, 'Service', 'gateway');
    (service.spec as Record<string, unknown>).type = 'Public';
    const problems = format(await validateSchemas([named(objects, 'Deployment', 'catalog'), pdb, service]));
    expect(problems).toEqual([
      'Deployment/catalog: schema: spec.template.spec.containers.0.ports.0.containerPort must be integer',
      'Deployment/catalog: schema: spec.template.spec.containers.0.readinesProbe is not a field of the API',
      expect.stringMatching(
        /^PodDisruptionBudget\/catalog: policy\/v1beta1 PodDisruptionBudget is not a kind these manifests use/,
      ),
      'Service/gateway: schema: spec.type must be one of ClusterIP, ExternalName, LoadBalancer, NodePort',
    ]);
  });
});

describe('tracing', () => {
  const platform = (objects: K8sObject[]) => named<ConfigMap>(objects, 'ConfigMap', 'pim-platform').data!;

  it('every app reads the OTEL_* variables of @pim/logging, and the overlays state them: off in dev, on in prod', () => {
    for (const app of apps) expect(app.reads).toEqual(expect.arrayContaining([...TRACING_VARIABLES]));
    expect(platform(rendered.dev).OTEL_TRACES_EXPORTER).toBe('none');
    expect(platform(rendered.prod).OTEL_TRACES_EXPORTER).toBe('otlp');
    expect(platform(rendered.prod).OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://otel-collector.monitoring.svc:4318');
  });

  it('a tracing variable added to @pim/logging that the manifests never considered fails the check', async () => {
    const facts = await loadAppFacts([...TRACING_VARIABLES, 'OTEL_TRACES_NEW_SETTING']);
    expect(format(checkEnv(rendered.prod, facts))).toEqual(
      facts.map(
        (a) =>
          `Deployment/${a.name}: ${a.name} reads OTEL_TRACES_NEW_SETTING: set it, or add it to DEFAULTED with the reason`,
      ),
    );
  });

  it('an exporter the apps refuse, and tracing left implied by the endpoint', () => {
    const objects = copy('dev');
    platform(objects).OTEL_TRACES_EXPORTER = 'jaeger';
    expect(format(checkEnv(objects, apps))).toContain(
      'Deployment/catalog: catalog would refuse OTEL_TRACES_EXPORTER: "jaeger" is not supported (otlp or none)',
    );
    delete platform(objects).OTEL_TRACES_EXPORTER;
    expect(format(checkTracing(objects, apps))).toContain(
      'Deployment/catalog: OTEL_TRACES_EXPORTER is not set: state tracing, otlp (on) or none (off)',
    );
  });

  it('tracing off in one app only, and spans sent inside the pod', () => {
    const objects = copy();
    named<ConfigMap>(objects, 'ConfigMap', 'orders-config').data!.OTEL_SDK_DISABLED = 'true';
    expect(format(checkTracing(objects, apps))).toEqual([
      'Deployment/orders: tracing is off, but on in catalog, gateway, io-jobs, publisher, webhooks, workflow: traces would break at orders',
    ]);
    platform(objects).OTEL_EXPORTER_OTLP_ENDPOINT = 'http://localhost:4318';
    expect(format(checkTracing(objects, apps))).toContain(
      'Deployment/gateway: tracing is on and sends spans to http://localhost:4318, inside the pod',
    );
  });
});

describe('examples', () => {
  it('the CloudNativePG Cluster is the database the manifests read, with the extensions and connections the apps need', () => {
    const databaseSecret = ofKind<Deployment>(rendered.prod, 'Deployment')
      .flatMap((d) => d.spec.template.spec.containers)
      .flatMap((c) => c.env ?? [])
      .find((e) => e.name === 'DATABASE_URL')?.valueFrom?.secretKeyRef;
    const problems = checkPostgresCluster(readYamlFile('deploy/k8s/examples/postgres-cluster.yaml'), {
      databaseSecret: databaseSecret!,
      extensions: extensionsInMigrations(),
      connections: connectionBudget(rendered.prod),
    });
    expect(format(problems)).toEqual([]);
  });

  it('the NATS Helm values run JetStream on files, for the stream the apps create', () => {
    const [values] = readYamlFile('deploy/k8s/examples/nats-values.yaml');
    expect(format(checkNatsValues(values, { stream: EVENTS_STREAM, subjects: EVENTS_SUBJECTS }))).toEqual([]);
  });

  it('NATS is reachable from exactly the apps that use it, and its NetworkPolicy validates', async () => {
    const policy = readYamlFile('deploy/k8s/examples/nats-network-policy.yaml');
    expect(format(checkNatsNetworkPolicy(policy, rendered.prod))).toEqual([]);
    expect(await validateSchemas(policy)).toEqual([]);
  });

  it('a Cluster whose secret the apps do not read, without an extension, or too small, fails', () => {
    const [cluster] = readYamlFile('deploy/k8s/examples/postgres-cluster.yaml');
    const spec = cluster.spec as { bootstrap: { initdb: { postInitApplicationSQL: string[] } } };
    spec.bootstrap.initdb.postInitApplicationSQL = spec.bootstrap.initdb.postInitApplicationSQL.slice(1);
    const problems = checkPostgresCluster([cluster], {
      databaseSecret: { name: 'pim-database', key: 'uri' },
      extensions: extensionsInMigrations(),
      connections: 5000,
    });
    expect(format(problems)).toEqual([
      'Cluster/pim-db: the apps read DATABASE_URL from Secret pim-database key uri; this cluster writes pim-db-app key uri',
      'Cluster/pim-db: postInitApplicationSQL does not create btree_gin',
      'Cluster/pim-db: max_connections 1000 < 5000 the prod overlay may open (tools/deploy/examples.ts)',
    ]);
  });
});

describe('docs/deploy.md', () => {
  const doc = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8');

  it('lists every setting an app reads and every secret to create', () => {
    const settings = [...new Set(apps.flatMap((a) => a.reads))].filter((v) => !doc.includes(`\`${v}\``));
    expect(settings).toEqual([]);
    const secrets = Object.entries(EXTERNAL_SECRETS)
      .flatMap(([name, keys]) => [name, ...keys])
      .filter((s) => !doc.includes(`\`${s}\``));
    expect(secrets).toEqual([]);
  });
});
