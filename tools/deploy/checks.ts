// The checks of the rendered manifests against the apps' own code. Every function here is pure:
// objects and facts in, problems out (an empty list: nothing wrong), so tests can feed them
// mutated copies. Rendering (kustomize) and schema validation run elsewhere (render.ts, schemas.ts).
import { readTracingEnv } from '@pim/logging';
import type { AppFacts } from './apps';
import {
  type ConfigMap,
  type Container,
  type Deployment,
  type HorizontalPodAutoscaler,
  type Job,
  type K8sObject,
  type Labels,
  type NetworkPolicy,
  type NetworkPolicyPeer,
  type PodDisruptionBudget,
  type PodSpec,
  type PodTemplate,
  type Problem,
  type Service,
  ofKind,
  ref,
  selects,
} from './objects';

/** The image every app runs (deploy/Dockerfile: `docker build -t pim-platform`); APP picks the app. */
export const IMAGE = 'pim-platform';

/** Variables the image reads itself (deploy/Dockerfile's ENTRYPOINT), not the apps' config. */
export const IMAGE_VARS = ['APP'];

/** The label of the namespace Prometheus scrapes from (NetworkPolicies let only it reach metrics). */
export const MONITORING_NAMESPACE: Labels = { 'kubernetes.io/metadata.name': 'monitoring' };

/** The image's user (`pim`, uid and gid 1000, deploy/Dockerfile): runAsNonRoot needs it numeric. */
export const IMAGE_UID = 1000;

/**
 * Secrets the manifests read but never hold: created on the cluster before the roll-out
 * (docs/deploy.md, step 1), each key listed. An unknown secret or key in the manifests is a problem.
 */
export const EXTERNAL_SECRETS: Record<string, string[]> = {
  // Written by CloudNativePG for the Cluster `pim-db` (deploy/k8s/examples/postgres-cluster.yaml);
  // for another Postgres, a Secret of that name with the URL under `uri`.
  'pim-db-app': ['uri'],
  'pim-platform': ['NATS_URL', 'PIM_BOOTSTRAP_API_KEY', 'PIM_SECRETS_KEYS'],
};

/**
 * Settings the apps read that the manifests deliberately leave to the apps' defaults, by app ('*':
 * every app that reads it), each with the reason. Anything an app reads must be set in the
 * manifests or listed here; anything listed here must not also be set.
 */
export const DEFAULTED: Record<string, Record<string, string>> = {
  '*': {
    PIM_SUBJECT_PREFIX: 'empty: one platform per NATS account; a prefix is for tests sharing one server',
    OUTBOX_MAX_BACKOFF_MS: 'the relay backs off up to 30 s while NATS is away; events wait in Postgres',
    OUTBOX_MAX_ATTEMPTS:
      'an event is set aside as a dead letter after 10 failed publishes (one to two and a half minutes of retries)',
    CONSUMER_MAX_DELIVER:
      'a consumer sets an event aside as a dead letter after 20 failed deliveries (about six minutes of retries)',
    DB_POOL_SIZE:
      'each app’s own pool size (10, the gateway 20, webhooks 16); lower it when many replicas share one Postgres',
    // Tracing: OTEL_TRACES_EXPORTER (on or off) and the collector are set in ConfigMap pim-platform.
    OTEL_SDK_DISABLED: 'OTEL_TRACES_EXPORTER says whether tracing is on (otlp) or off (none)',
    OTEL_SERVICE_NAME: 'each app names its spans after itself (gateway, catalog…), as its logs and metrics do',
    OTEL_TRACES_SAMPLER: 'parentbased_always_on: every trace is kept; sample in the collector (tail sampling)',
    OTEL_TRACES_SAMPLER_ARG: 'no ratio: the sampler keeps every trace',
    OTEL_BSP_SCHEDULE_DELAY: 'the SDK’s batch processor: a batch every 5 s',
    OTEL_BSP_MAX_QUEUE_SIZE: 'the SDK’s batch processor: 2,048 spans waiting at most, then dropped',
    OTEL_BSP_MAX_EXPORT_BATCH_SIZE: 'the SDK’s batch processor: 512 spans a request',
    OTEL_BSP_EXPORT_TIMEOUT: 'the SDK’s batch processor: 30 s an export',
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'OTEL_EXPORTER_OTLP_ENDPOINT names the collector; spans go to its /v1/traces',
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf, which every collector’s OTLP/HTTP receiver takes',
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'OTEL_EXPORTER_OTLP_PROTOCOL’s default',
    OTEL_EXPORTER_OTLP_HEADERS: 'the collector is in the cluster and asks for no credentials',
    OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'the collector is in the cluster and asks for no credentials',
    OTEL_EXPORTER_OTLP_TIMEOUT: 'the exporter’s 10 s',
    OTEL_EXPORTER_OTLP_TRACES_TIMEOUT: 'the exporter’s 10 s',
    OTEL_EXPORTER_OTLP_COMPRESSION: 'none: the collector is in the cluster',
    OTEL_EXPORTER_OTLP_TRACES_COMPRESSION: 'none: the collector is in the cluster',
  },
  gateway: {
    HOST: '0.0.0.0: every interface of the pod',
    NATS_URL: 'read by the shared base schema only: the gateway never connects to NATS',
    JSON_BODY_LIMIT: 'the API rules (JSON bodies up to 1 MiB)',
    BULK_BODY_LIMIT: 'the API rules (a bulk upsert of 1,000 products, up to 16 MiB)',
    UPLOAD_TIMEOUT_MS: 'one hour for the largest upload on a slow link',
    PAGE_SIZE_DEFAULT: 'the API rules (25 a page unless `limit` says otherwise)',
    PAGE_SIZE_MAX: 'the API rules (`limit` at most 100)',
    API_KEY_CACHE_TTL_MS: 'revocations reach every replica at once by NOTIFY; the TTL is a backstop',
    REQUEST_TIMEOUT_MS: '30 s, so the gateway answers before an ingress gives up (ingress-nginx: 60 s)',
    IDEMPOTENCY_RETENTION_HOURS: 'the API rules (an Idempotency-Key replays for 24 h)',
  },
  catalog: {},
  workflow: {
    PRODUCT_APPROVAL_LEASE_MS: 'a crashed replica’s application is taken over after 30 s',
  },
  orders: {},
  'io-jobs': {
    IMPORT_BATCH_SIZE: 'the catalog’s bulk limit (1,000 rows)',
    IMPORT_HEARTBEAT_SECONDS: 'a crashed worker’s import resumes elsewhere after 30 s',
    IMPORT_SUPERVISE_SECONDS: 'how often replicas look for such imports',
    IMPORT_ATTEMPTS: 'tries before an import fails (each resumes where the last stopped)',
    EXPORT_ATTEMPTS: 'tries before an export fails',
    EXPORT_BATCH_SIZE: 'products read from the catalog at once (its limit)',
    EXPORT_MAX_BYTES: 'largest export file (8 GiB); the files volume is sized for several',
    EXPORT_SWEEP_SECONDS: 'how often expired export files are removed',
    EXPORT_PROGRESS_MS: 'how often a running export shows its counts',
  },
  publisher: {
    PUBLISHER_RETRY_SCHEDULE: 'the documented schedule (5s,30s,2m,10m,30m)',
    PUBLISHER_RETRY_JITTER: '±20 % so channels are not hit in waves',
    PUBLISHER_LEASE_MS: 'longer than the longest channel timeout (60 s)',
    PUBLISHER_POLL_MS: 'claim polling when no notification arrives',
    PUBLISHER_AUTO_REPUBLISH_CONSUMER: 'the durable every replica shares; renaming it restarts from the stream',
  },
  webhooks: {
    WEBHOOKS_FANOUT_CONSUMER: 'the durable every replica shares; renaming it restarts from the stream',
    WEBHOOKS_FANOUT_ACK_WAIT_MS: 'set when the durable is created; 30 s',
    WEBHOOKS_RETRY_SCHEDULE: 'the documented schedule (5s,5m,30m,2h,5h,10h,10h)',
    WEBHOOKS_RETRY_JITTER: '±20 % so receivers are not hit in waves',
    WEBHOOKS_TIMEOUT_MS: 'the API rules (a receiver answers within 10 s)',
    WEBHOOKS_PER_WEBHOOK_CONCURRENCY: 'requests in flight to one webhook over all replicas',
    WEBHOOKS_LEASE_MS: 'a claimed delivery of a crashed replica is retried after 30 s',
    WEBHOOKS_POLL_MS: 'claim polling when no notification arrives',
    WEBHOOKS_SECRET_OVERLAP_MS: 'the previous secret keeps signing for 24 h after a rotation',
    WEBHOOKS_RESPONSE_BODY_MAX: 'bytes of a receiver’s answer kept in the delivery log',
    WEBHOOKS_RETENTION_DAYS: 'the delivery log outlives the stream’s 7 days',
  },
};

/** Where a container's variable comes from. */
export type EnvSource =
  | { from: 'env'; value: string }
  | { from: 'configMap'; name: string; value: string }
  | { from: 'secret'; name: string; key: string }
  | { from: 'other' };

/** A container's environment as Kubernetes assembles it: `env` over `envFrom`, in order. */
export function resolveEnv(
  container: Container,
  configMaps: ConfigMap[],
  where: string,
): { vars: Map<string, EnvSource>; problems: Problem[] } {
  const vars = new Map<string, EnvSource>();
  const problems: Problem[] = [];
  const setFrom = new Map<string, string>();
  const put = (name: string, source: EnvSource, origin: string) => {
    const before = setFrom.get(name);
    if (before) problems.push({ where, message: `${name} is set twice (${before} and ${origin}): keep one place` });
    setFrom.set(name, origin);
    vars.set(name, source);
  };
  for (const from of container.envFrom ?? []) {
    if (from.secretRef) {
      problems.push({
        where,
        message: `envFrom secretRef ${from.secretRef.name}: name each secret key with env valueFrom.secretKeyRef instead (so the check and the reader see which variables it sets)`,
      });
    } else if (from.configMapRef) {
      const cm = configMaps.find((c) => c.metadata.name === from.configMapRef?.name);
      if (!cm) {
        problems.push({ where, message: `envFrom ConfigMap ${from.configMapRef.name} is not in the manifests` });
        continue;
      }
      for (const [key, value] of Object.entries(cm.data ?? {})) {
        put(
          `${from.prefix ?? ''}${key}`,
          { from: 'configMap', name: cm.metadata.name, value },
          `ConfigMap ${cm.metadata.name}`,
        );
      }
    }
  }
  for (const v of container.env ?? []) {
    const secret = v.valueFrom?.secretKeyRef;
    const cmKey = v.valueFrom?.configMapKeyRef;
    let source: EnvSource = { from: 'other' };
    if (v.value !== undefined) source = { from: 'env', value: v.value };
    else if (secret) source = { from: 'secret', name: secret.name, key: secret.key };
    else if (cmKey) {
      const value = configMaps.find((c) => c.metadata.name === cmKey.name)?.data?.[cmKey.key];
      if (value === undefined)
        problems.push({ where, message: `${v.name}: ConfigMap ${cmKey.name} has no ${cmKey.key}` });
      else source = { from: 'configMap', name: cmKey.name, value };
    }
    put(v.name, source, 'env');
  }
  return { vars, problems };
}

/** The literal value of a variable (env or ConfigMap), if it has one. */
export function literal(vars: Map<string, EnvSource>, name: string): string | undefined {
  const s = vars.get(name);
  return s && (s.from === 'env' || s.from === 'configMap') ? s.value : undefined;
}

/** The one Deployment and Job of each app, and the container that runs the app in each. */
interface Workload {
  obj: Deployment | Job;
  pod: PodTemplate;
  container?: Container;
}

const appContainer = (spec: PodSpec, app: string): Container | undefined =>
  spec.containers.find((c) => (c.env ?? []).some((e) => e.name === 'APP' && e.value === app));

function find<T extends K8sObject>(objects: K8sObject[], kind: T['kind'], name: string): T | undefined {
  return ofKind<T>(objects, kind).find((o) => o.metadata.name === name);
}

/** Every app has its objects, and there is no workload of an app that does not exist. */
export function checkInventory(objects: K8sObject[], apps: AppFacts[]): Problem[] {
  const problems: Problem[] = [];
  const expected = (app: string): [string, string][] => [
    ['ServiceAccount', app],
    ['ConfigMap', `${app}-config`],
    ['Job', `${app}-migrate`],
    ['Deployment', app],
    ['Service', app],
    ['PodDisruptionBudget', app],
    ['HorizontalPodAutoscaler', app],
    ['NetworkPolicy', app],
  ];
  for (const app of apps) {
    for (const [kind, name] of expected(app.name)) {
      if (!find(objects, kind, name)) problems.push({ where: `app ${app.name}`, message: `has no ${kind} ${name}` });
    }
  }
  const names = new Set(apps.map((a) => a.name));
  for (const w of [...ofKind<Deployment>(objects, 'Deployment'), ...ofKind<Job>(objects, 'Job')]) {
    for (const c of w.spec.template.spec.containers) {
      const app = c.env?.find((e) => e.name === 'APP')?.value;
      if (app === undefined) problems.push({ where: ref(w), message: `container ${c.name} sets no APP` });
      else if (!names.has(app)) problems.push({ where: ref(w), message: `APP=${app} is not an app (apps/${app})` });
    }
  }
  const namespaces = new Set(objects.map((o) => o.metadata.namespace ?? '(none)'));
  if (namespaces.size !== 1)
    problems.push({ where: 'manifests', message: `several namespaces: ${[...namespaces].join(', ')}` });
  return problems;
}

/** The workloads of an app (absent ones are checkInventory's problem). */
function workloadsOf(objects: K8sObject[], app: AppFacts): { deployment?: Workload; job?: Workload } {
  const d = find<Deployment>(objects, 'Deployment', app.name);
  const j = find<Job>(objects, 'Job', `${app.name}-migrate`);
  const w = (obj: Deployment | Job): Workload => ({
    obj,
    pod: obj.spec.template,
    container: appContainer(obj.spec.template.spec, app.name),
  });
  return { deployment: d && w(d), job: j && w(j) };
}

const mainPortName = (app: AppFacts) => (app.kind === 'grpc' ? 'grpc' : 'http');

/** The port an app serves on in a container: its port variable's value there, else its default. */
export function effectivePort(app: AppFacts, vars: Map<string, EnvSource>): number {
  const value = literal(vars, app.portVar);
  return value === undefined ? app.defaultPort : Number(value);
}

/** A port of a container by name or number. */
function containerPort(c: Container, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  return c.ports?.find((p) => p.name === port)?.containerPort;
}

/**
 * Ports agree with the apps' settings: the container serves on the port its setting gives (or its
 * default), under the name grpc/http; the Service reaches it; metrics are on their own port, with
 * the scrape annotations; every caller's `<APP>_GRPC_URL` names the callee's Service and port.
 */
export function checkPorts(objects: K8sObject[], apps: AppFacts[]): Problem[] {
  const problems: Problem[] = [];
  const configMaps = ofKind<ConfigMap>(objects, 'ConfigMap');
  const namespace = objects[0]?.metadata.namespace;
  const servicePortOf = new Map<string, number>();
  for (const app of apps) {
    const { deployment } = workloadsOf(objects, app);
    if (!deployment?.container) {
      if (deployment) problems.push({ where: ref(deployment.obj), message: `no container sets APP=${app.name}` });
      continue;
    }
    const where = ref(deployment.obj);
    const c = deployment.container;
    const { vars } = resolveEnv(c, configMaps, where);
    const port = effectivePort(app, vars);
    const name = mainPortName(app);
    if (!Number.isInteger(port) || port <= 0) {
      problems.push({ where, message: `${app.portVar}=${literal(vars, app.portVar)} is not a port` });
      continue;
    }
    const declared = c.ports?.find((p) => p.name === name);
    if (!declared) problems.push({ where, message: `container ${c.name} has no port named ${name}` });
    else if (declared.containerPort !== port) {
      problems.push({
        where,
        message: `port ${name} is ${declared.containerPort} but the app listens on ${port} (${app.portVar}${literal(vars, app.portVar) === undefined ? ' default' : ''})`,
      });
    }
    const service = find<Service>(objects, 'Service', app.name);
    if (service) {
      // Callers spread their calls over every address the name resolves to (round_robin): a
      // headless Service resolves to each ready pod, a ClusterIP to one address and one pod per caller.
      if (app.kind === 'grpc' && service.spec.clusterIP !== 'None')
        problems.push({
          where: ref(service),
          message: `is not headless (clusterIP: None): each caller of ${app.name} would send all its calls to one pod`,
        });
      if (!selects(service.spec.selector, deployment.pod.metadata?.labels)) {
        problems.push({ where: ref(service), message: `selector does not select the pods of Deployment/${app.name}` });
      }
      const sp = service.spec.ports.find((p) => containerPort(c, p.targetPort ?? p.port) === port);
      if (!sp)
        problems.push({ where: ref(service), message: `no port reaches the ${name} port ${port} of ${app.name}` });
      else servicePortOf.set(app.name, sp.port);
    }
    // Metrics: their own port, scraped through the pod annotations.
    const metrics = Number(literal(vars, app.metricsVar) ?? 0);
    const annotations = deployment.pod.metadata?.annotations ?? {};
    if (!(metrics > 0)) problems.push({ where, message: `${app.metricsVar} is not set to a port: no metrics` });
    else {
      const mp = c.ports?.find((p) => p.name === 'metrics');
      if (mp?.containerPort !== metrics) {
        problems.push({
          where,
          message: `port metrics is ${mp?.containerPort ?? 'missing'}, ${app.metricsVar} is ${metrics}`,
        });
      }
      if (metrics === port) problems.push({ where, message: `metrics share the ${name} port ${port}` });
      if (annotations['prometheus.io/scrape'] !== 'true' || annotations['prometheus.io/port'] !== String(metrics)) {
        problems.push({
          where,
          message: `pod annotations prometheus.io/scrape "true" and prometheus.io/port "${metrics}" missing`,
        });
      }
    }
  }
  // Callers: <CALLEE>_GRPC_URL is the callee's Service and port.
  const hosts = (svc: string) => [
    svc,
    `${svc}.${namespace}`,
    `${svc}.${namespace}.svc`,
    `${svc}.${namespace}.svc.cluster.local`,
  ];
  for (const app of apps) {
    const { deployment } = workloadsOf(objects, app);
    if (!deployment?.container) continue;
    const { vars } = resolveEnv(deployment.container, configMaps, ref(deployment.obj));
    for (const calleeName of app.calls) {
      const callee = apps.find((a) => a.name === calleeName);
      const variable = `${callee?.envPrefix}_GRPC_URL`;
      const value = literal(vars, variable);
      const servicePort = servicePortOf.get(calleeName);
      const where = ref(deployment.obj);
      if (value === undefined) {
        problems.push({
          where,
          message: `${app.name} calls ${calleeName} but ${variable} is not set (its default is a local address)`,
        });
      } else if (servicePort !== undefined) {
        const [host, p] = value.replace(/^dns:\/\/\//, '').split(':');
        if (!hosts(calleeName).includes(host) || Number(p) !== servicePort) {
          problems.push({
            where,
            message: `${variable}=${value}, but ${calleeName} answers at ${calleeName}:${servicePort}`,
          });
        }
      }
    }
  }
  return problems;
}

/**
 * Probes: gRPC apps use grpc.health.v1 on their gRPC port (startup, readiness, liveness); the HTTP
 * app uses GET /healthz (startup, liveness) and /readyz (readiness) on its HTTP port.
 */
export function checkProbes(objects: K8sObject[], apps: AppFacts[]): Problem[] {
  const problems: Problem[] = [];
  const configMaps = ofKind<ConfigMap>(objects, 'ConfigMap');
  for (const app of apps) {
    const { deployment } = workloadsOf(objects, app);
    if (!deployment?.container) continue;
    const where = ref(deployment.obj);
    const c = deployment.container;
    const port = effectivePort(app, resolveEnv(c, configMaps, where).vars);
    const wanted: [keyof Container, string][] =
      app.kind === 'grpc'
        ? [
            ['startupProbe', ''],
            ['readinessProbe', ''],
            ['livenessProbe', ''],
          ]
        : [
            ['startupProbe', '/healthz'],
            ['readinessProbe', '/readyz'],
            ['livenessProbe', '/healthz'],
          ];
    for (const [field, path] of wanted) {
      const probe = c[field] as Container['readinessProbe'];
      if (!probe) {
        problems.push({ where, message: `container ${c.name} has no ${field}` });
      } else if (app.kind === 'grpc') {
        if (!probe.grpc) problems.push({ where, message: `${field} is not a grpc.health.v1 probe` });
        else if (probe.grpc.port !== port) {
          problems.push({ where, message: `${field} checks port ${probe.grpc.port}, the app serves gRPC on ${port}` });
        } else if (probe.grpc.service) {
          problems.push({
            where,
            message: `${field} asks for service "${probe.grpc.service}"; the server's health is ""`,
          });
        }
      } else if (!probe.httpGet) {
        problems.push({ where, message: `${field} is not an HTTP GET ${path}` });
      } else {
        if (probe.httpGet.path !== path)
          problems.push({ where, message: `${field} GETs ${probe.httpGet.path}, not ${path}` });
        const target = containerPort(c, probe.httpGet.port);
        if (target !== port)
          problems.push({ where, message: `${field} checks port ${target}, the app listens on ${port}` });
      }
    }
  }
  return problems;
}

/** The parts of an image reference. */
export function parseImage(image: string): { repository: string; tag?: string; digest?: string } {
  const [withoutDigest, digest] = image.split('@');
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  if (colon > slash) return { repository: withoutDigest.slice(0, colon), tag: withoutDigest.slice(colon + 1), digest };
  return { repository: withoutDigest, digest };
}

/**
 * One image everywhere (the Dockerfile's, APP picks the app), pinned by a tag other than latest or
 * a digest; each workload runs an entry the app has (main.ts, or migrate.ts for the Jobs).
 */
export function checkImages(objects: K8sObject[], apps: AppFacts[]): Problem[] {
  const problems: Problem[] = [];
  const images = new Map<string, string[]>();
  for (const w of [...ofKind<Deployment>(objects, 'Deployment'), ...ofKind<Job>(objects, 'Job')]) {
    for (const c of [...(w.spec.template.spec.initContainers ?? []), ...w.spec.template.spec.containers]) {
      const image = c.image ?? '(none)';
      images.set(image, [...(images.get(image) ?? []), `${ref(w)}:${c.name}`]);
    }
  }
  if (images.size > 1) {
    problems.push({
      where: 'images',
      message: `several images: ${[...images].map(([i, users]) => `${i} (${users.join(', ')})`).join('; ')}`,
    });
  }
  for (const image of images.keys()) {
    const { repository, tag, digest } = parseImage(image);
    if (repository.split('/').pop() !== IMAGE)
      problems.push({ where: 'images', message: `${image} is not the ${IMAGE} image` });
    if (!digest && (!tag || tag === 'latest'))
      problems.push({ where: 'images', message: `${image} is not pinned (tag or digest)` });
  }
  for (const app of apps) {
    const { deployment, job } = workloadsOf(objects, app);
    const entry = (w: Workload | undefined, wanted: string, has: boolean) => {
      if (!w?.container) {
        if (w) problems.push({ where: ref(w.obj), message: `no container sets APP=${app.name}` });
        return;
      }
      const arg = w.container.args?.[0] ?? 'main';
      if (w.container.command)
        problems.push({ where: ref(w.obj), message: 'overrides the image entrypoint (command)' });
      if (arg !== wanted)
        problems.push({ where: ref(w.obj), message: `runs ${arg}, not ${wanted} (apps/${app.name}/src/${wanted}.ts)` });
      else if (!has) problems.push({ where: ref(w.obj), message: `apps/${app.name}/src/${wanted}.ts does not exist` });
    };
    entry(deployment, 'main', app.hasMain);
    entry(job, 'migrate', app.hasMigrate);
  }
  return problems;
}

/**
 * Every variable an app reads is set (env, a ConfigMap, a Secret key) or deliberately defaulted
 * (DEFAULTED); nothing is set that the app does not read; literal values pass the app's own
 * validation; Secrets are the known external ones; a Job sees the settings its Deployment sees.
 */
export function checkEnv(
  objects: K8sObject[],
  apps: AppFacts[],
  defaulted: Record<string, Record<string, string>> = DEFAULTED,
  secrets: Record<string, string[]> = EXTERNAL_SECRETS,
): Problem[] {
  const problems: Problem[] = [];
  const configMaps = ofKind<ConfigMap>(objects, 'ConfigMap');
  const readers = (variable: string) => apps.filter((a) => a.reads.includes(variable)).map((a) => a.name);
  for (const variable of Object.keys(defaulted['*'] ?? {})) {
    if (readers(variable).length === 0)
      problems.push({ where: 'DEFAULTED.*', message: `${variable} is read by no app` });
  }
  for (const app of apps) {
    const { deployment, job } = workloadsOf(objects, app);
    const allowed = { ...defaulted['*'], ...defaulted[app.name] };
    for (const variable of Object.keys(defaulted[app.name] ?? {})) {
      if (!app.reads.includes(variable)) {
        problems.push({ where: `DEFAULTED.${app.name}`, message: `${variable} is not read by ${app.name}` });
      }
    }
    let deploymentEnv: Map<string, EnvSource> | undefined;
    for (const w of [deployment, job]) {
      if (!w?.container) continue;
      const where = ref(w.obj);
      const { vars, problems: resolving } = resolveEnv(w.container, configMaps, where);
      problems.push(...resolving);
      for (const [variable, source] of vars) {
        if (source.from === 'secret' && !(secrets[source.name] ?? []).includes(source.key)) {
          problems.push({
            where,
            message: `${variable} reads Secret ${source.name} key ${source.key}, which is not a known external secret (EXTERNAL_SECRETS, docs/deploy.md)`,
          });
        }
        if (IMAGE_VARS.includes(variable)) continue;
        const shared = source.from === 'configMap' && source.name !== `${app.name}-config`;
        if (!app.reads.includes(variable) && !(shared && readers(variable).length > 0)) {
          problems.push({ where, message: `${variable} is set but ${app.name} does not read it` });
        }
        if (app.reads.includes(variable) && variable in allowed && w === deployment) {
          problems.push({ where, message: `${variable} is set and also listed in DEFAULTED: one or the other` });
        }
      }
      if (w === deployment) {
        deploymentEnv = vars;
        for (const variable of app.reads) {
          if (!vars.has(variable) && !(variable in allowed)) {
            problems.push({
              where,
              message: `${app.name} reads ${variable}: set it, or add it to DEFAULTED with the reason`,
            });
          }
        }
      } else if (deploymentEnv) {
        // The Job validates the same schema: it must see the same settings and the same database.
        const refs = (c: Container) =>
          JSON.stringify((c.envFrom ?? []).map((f) => f.configMapRef?.name ?? f.secretRef?.name));
        if (deployment?.container && refs(w.container) !== refs(deployment.container)) {
          problems.push({ where, message: `envFrom differs from Deployment/${app.name}'s` });
        }
        if (JSON.stringify(vars.get('DATABASE_URL')) !== JSON.stringify(deploymentEnv.get('DATABASE_URL'))) {
          problems.push({ where, message: `DATABASE_URL is not the one Deployment/${app.name} uses` });
        }
      }
      const literals = Object.fromEntries(
        [...vars].flatMap(([k]) => (literal(vars, k) === undefined ? [] : [[k, literal(vars, k) as string]])),
      );
      for (const issue of app.validate(literals))
        problems.push({ where, message: `${app.name} would refuse ${issue}` });
    }
  }
  return problems;
}

/**
 * Pods run as the image's non-root user with no privilege to gain, a read-only root filesystem
 * (a volume for /tmp and for every directory setting), no capabilities, the runtime's seccomp
 * profile, no service account token, and requests (CPU, memory) and a memory limit.
 */
export function checkSecurity(objects: K8sObject[], apps: AppFacts[]): Problem[] {
  const problems: Problem[] = [];
  const configMaps = ofKind<ConfigMap>(objects, 'ConfigMap');
  for (const w of [...ofKind<Deployment>(objects, 'Deployment'), ...ofKind<Job>(objects, 'Job')]) {
    const where = ref(w);
    const pod = w.spec.template.spec;
    const podSc = pod.securityContext ?? {};
    if (podSc.runAsNonRoot !== true) problems.push({ where, message: 'pod securityContext.runAsNonRoot is not true' });
    if (podSc.runAsUser !== IMAGE_UID) {
      problems.push({
        where,
        message: `pod securityContext.runAsUser is not ${IMAGE_UID} (the image's user is a name, which runAsNonRoot cannot check)`,
      });
    }
    if (pod.automountServiceAccountToken !== false)
      problems.push({ where, message: 'mounts a service account token (the apps never call the API server)' });
    const sa = pod.serviceAccountName;
    if (!sa || !find(objects, 'ServiceAccount', sa))
      problems.push({ where, message: `service account ${sa ?? '(default)'} is not one of the manifests'` });
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      const sc = c.securityContext ?? {};
      const at = `${where}:${c.name}`;
      if (sc.allowPrivilegeEscalation !== false)
        problems.push({ where: at, message: 'allowPrivilegeEscalation is not false' });
      if (sc.privileged) problems.push({ where: at, message: 'is privileged' });
      if (sc.readOnlyRootFilesystem !== true)
        problems.push({ where: at, message: 'readOnlyRootFilesystem is not true' });
      if (!(sc.capabilities?.drop ?? []).includes('ALL'))
        problems.push({ where: at, message: 'does not drop ALL capabilities' });
      if ((sc.capabilities?.add ?? []).length > 0)
        problems.push({ where: at, message: `adds capabilities ${sc.capabilities?.add?.join(', ')}` });
      if ((sc.seccompProfile ?? podSc.seccompProfile)?.type !== 'RuntimeDefault') {
        problems.push({ where: at, message: 'seccompProfile is not RuntimeDefault' });
      }
      const requests = c.resources?.requests ?? {};
      if (!requests.cpu || !requests.memory) problems.push({ where: at, message: 'requests no CPU or no memory' });
      if (!c.resources?.limits?.memory) problems.push({ where: at, message: 'has no memory limit' });
      // Writable places: /tmp (@swc-node/register's cache, spooled files) and every *_DIR setting.
      const writable = (path: string) =>
        (c.volumeMounts ?? []).some(
          (m) =>
            !m.readOnly &&
            (path === m.mountPath || path.startsWith(`${m.mountPath.replace(/\/$/, '')}/`)) &&
            (pod.volumes ?? []).some((v) => v.name === m.name && !v.persistentVolumeClaim?.readOnly),
        );
      if (!writable('/tmp'))
        problems.push({ where: at, message: 'has no writable volume at /tmp (the root filesystem is read-only)' });
      for (const m of c.volumeMounts ?? []) {
        if (!(pod.volumes ?? []).some((v) => v.name === m.name))
          problems.push({ where: at, message: `mounts ${m.name}, which is not a volume of the pod` });
      }
      for (const v of pod.volumes ?? []) {
        const claim = v.persistentVolumeClaim?.claimName;
        if (claim && !find(objects, 'PersistentVolumeClaim', claim))
          problems.push({ where, message: `volume ${v.name} claims ${claim}, which is not in the manifests` });
      }
      const app = apps.find((a) => a.name === c.env?.find((e) => e.name === 'APP')?.value);
      if (!app || w.kind === 'Job') continue;
      const { vars } = resolveEnv(c, configMaps, at);
      for (const variable of app.reads.filter((r) => r.endsWith('_DIR'))) {
        const dir = literal(vars, variable) ?? String(app.defaults[variable] ?? '');
        if (!dir.startsWith('/') || !writable(dir)) {
          problems.push({ where: at, message: `${variable}=${dir || '(unset)'} is not on a writable volume` });
        }
      }
    }
  }
  return problems;
}

/** Seconds of the preStop sleep, if any. */
const preStopSeconds = (c: Container) => c.lifecycle?.preStop?.sleep?.seconds ?? 0;

/**
 * Scaling and disruption: the HorizontalPodAutoscaler owns each Deployment's replicas (the
 * Deployment sets none), scales on CPU (which the container requests), with bounds 1 ≤ min ≤ max;
 * the PodDisruptionBudget covers the pods and never blocks a drain at the minimum; the pods get
 * time to shut down in order (preStop + twice SHUTDOWN_GRACE_MS + 5 s).
 */
export function checkScaling(objects: K8sObject[], apps: AppFacts[]): Problem[] {
  const problems: Problem[] = [];
  const configMaps = ofKind<ConfigMap>(objects, 'ConfigMap');
  for (const app of apps) {
    const { deployment } = workloadsOf(objects, app);
    if (!deployment) continue;
    const d = deployment.obj as Deployment;
    const labels = deployment.pod.metadata?.labels;
    if (!selects(d.spec.selector.matchLabels, labels))
      problems.push({ where: ref(d), message: 'selector does not select its own pods' });
    if (d.spec.replicas !== undefined) {
      problems.push({
        where: ref(d),
        message:
          'sets replicas, which every apply would reset under its HorizontalPodAutoscaler: set the HPA bounds instead',
      });
    }
    const hpa = find<HorizontalPodAutoscaler>(objects, 'HorizontalPodAutoscaler', app.name);
    if (hpa) {
      const t = hpa.spec.scaleTargetRef;
      if (t.kind !== 'Deployment' || t.name !== app.name || t.apiVersion !== 'apps/v1') {
        problems.push({
          where: ref(hpa),
          message: `scales ${t.apiVersion} ${t.kind}/${t.name}, not apps/v1 Deployment/${app.name}`,
        });
      }
      const min = hpa.spec.minReplicas ?? 1;
      if (!(min >= 1 && min <= hpa.spec.maxReplicas))
        problems.push({ where: ref(hpa), message: `bounds ${min}..${hpa.spec.maxReplicas} are not 1 ≤ min ≤ max` });
      const onCpu = JSON.stringify(hpa.spec.metrics ?? []).includes('"name":"cpu"');
      if (!onCpu) problems.push({ where: ref(hpa), message: 'does not scale on CPU' });
      if (onCpu && !deployment.container?.resources?.requests?.cpu)
        problems.push({ where: ref(hpa), message: 'scales on CPU but the container requests none' });
      const pdb = find<PodDisruptionBudget>(objects, 'PodDisruptionBudget', app.name);
      if (pdb) {
        if (!selects(pdb.spec.selector?.matchLabels, labels))
          problems.push({ where: ref(pdb), message: `does not select the pods of Deployment/${app.name}` });
        const minAvailable = pdb.spec.minAvailable;
        if (minAvailable === undefined && pdb.spec.maxUnavailable === undefined)
          problems.push({ where: ref(pdb), message: 'sets neither maxUnavailable nor minAvailable' });
        if (typeof minAvailable === 'number' && minAvailable >= min) {
          problems.push({
            where: ref(pdb),
            message: `minAvailable ${minAvailable} blocks every drain at the HPA minimum ${min}`,
          });
        }
      }
    }
    if (deployment.container) {
      const vars = resolveEnv(deployment.container, configMaps, ref(d)).vars;
      const graceMs = Number(literal(vars, 'SHUTDOWN_GRACE_MS') ?? app.defaults.SHUTDOWN_GRACE_MS ?? 10_000);
      const needed = preStopSeconds(deployment.container) + 2 * Math.ceil(graceMs / 1000) + 5;
      const given = deployment.pod.spec.terminationGracePeriodSeconds ?? 30;
      if (given < needed) {
        problems.push({
          where: ref(d),
          message: `terminationGracePeriodSeconds ${given} < ${needed} (preStop + 2 × SHUTDOWN_GRACE_MS + 5 s)`,
        });
      }
    }
  }
  return problems;
}

/** A peer of a NetworkPolicy rule, in words: `app:<name>`, `namespace:{…}`, `everyone`… */
function describePeer(peer: NetworkPolicyPeer): string {
  if (peer.ipBlock) return `ip:${peer.ipBlock.cidr}`;
  if (peer.namespaceSelector) {
    const pods = peer.podSelector ? ` pods:${JSON.stringify(peer.podSelector)}` : '';
    return `namespace:${JSON.stringify(peer.namespaceSelector.matchLabels ?? {})}${pods}`;
  }
  const labels = peer.podSelector?.matchLabels ?? {};
  const name = labels['app.kubernetes.io/name'];
  if (name && Object.keys(labels).length === 1 && !peer.podSelector?.matchExpressions) return `app:${name}`;
  return `pods:${JSON.stringify(peer.podSelector ?? {})}`;
}

/** Who a NetworkPolicy lets reach a port (by name or number) of its pods; `everyone` for no `from`. */
export function allowedPeers(np: NetworkPolicy, portName: string, portNumber: number): Set<string> {
  const peers = new Set<string>();
  if (!(np.spec.policyTypes ?? ['Ingress']).includes('Ingress')) return new Set(['everyone']);
  for (const rule of np.spec.ingress ?? []) {
    const covers =
      !rule.ports ||
      rule.ports.length === 0 ||
      rule.ports.some((p) => p.port === undefined || p.port === portName || p.port === portNumber);
    if (!covers) continue;
    if (!rule.from || rule.from.length === 0) peers.add('everyone');
    else rule.from.forEach((peer) => peers.add(describePeer(peer)));
  }
  return peers;
}

/**
 * NetworkPolicies: an app's gRPC port is reachable from exactly the apps that call it (the gateway
 * and those reading its `<APP>_GRPC_URL`), its metrics port from the monitoring namespace only; the
 * gateway's HTTP port is reachable (it is the entry).
 */
export function checkNetworkPolicies(
  objects: K8sObject[],
  apps: AppFacts[],
  monitoring: Labels = MONITORING_NAMESPACE,
): Problem[] {
  const problems: Problem[] = [];
  const configMaps = ofKind<ConfigMap>(objects, 'ConfigMap');
  const scraper = `namespace:${JSON.stringify(monitoring)}`;
  const show = (s: Set<string>) => [...s].sort().join(', ') || 'nobody';
  for (const app of apps) {
    const np = find<NetworkPolicy>(objects, 'NetworkPolicy', app.name);
    const { deployment } = workloadsOf(objects, app);
    if (!np || !deployment?.container) continue;
    const where = ref(np);
    if (!selects(np.spec.podSelector.matchLabels, deployment.pod.metadata?.labels)) {
      problems.push({ where, message: `does not select the pods of Deployment/${app.name}` });
    }
    if (!(np.spec.policyTypes ?? []).includes('Ingress'))
      problems.push({ where, message: 'policyTypes has no Ingress' });
    const vars = resolveEnv(deployment.container, configMaps, ref(deployment.obj)).vars;
    const port = effectivePort(app, vars);
    const main = allowedPeers(np, mainPortName(app), port);
    if (app.kind === 'grpc') {
      const callers = new Set(apps.filter((a) => a.calls.includes(app.name)).map((a) => `app:${a.name}`));
      if (show(main) !== show(callers)) {
        problems.push({
          where,
          message: `lets ${show(main)} reach gRPC port ${port}; its callers are ${show(callers)}`,
        });
      }
    } else if (main.size === 0) {
      problems.push({ where, message: `nobody may reach the ${mainPortName(app)} port ${port}` });
    }
    const metricsPort = Number(literal(vars, app.metricsVar) ?? 0);
    if (metricsPort > 0) {
      const scrapers = allowedPeers(np, 'metrics', metricsPort);
      if (show(scrapers) !== scraper)
        problems.push({ where, message: `lets ${show(scrapers)} reach metrics; only ${scraper} should` });
    }
  }
  return problems;
}

/** Migration Jobs: run once to completion, never selected by a Service (they serve nothing). */
export function checkJobs(objects: K8sObject[], apps: AppFacts[]): Problem[] {
  const problems: Problem[] = [];
  for (const app of apps) {
    const { job } = workloadsOf(objects, app);
    if (!job) continue;
    const j = job.obj as Job;
    if (!['Never', 'OnFailure'].includes(job.pod.spec.restartPolicy ?? ''))
      problems.push({ where: ref(j), message: 'restartPolicy is not Never or OnFailure' });
    if (j.spec.backoffLimit === undefined) problems.push({ where: ref(j), message: 'has no backoffLimit' });
    for (const svc of ofKind<Service>(objects, 'Service')) {
      if (selects(svc.spec.selector, job.pod.metadata?.labels))
        problems.push({ where: ref(j), message: `its pods are selected by ${ref(svc)}` });
    }
  }
  return problems;
}

/** Where spans go when tracing is on: the standard variables, the traces-only one first. */
const TRACES_ENDPOINT_VARS = ['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', 'OTEL_EXPORTER_OTLP_ENDPOINT'];

/**
 * Tracing is stated, not implied: every app's Deployment sets OTEL_TRACES_EXPORTER (otlp or none);
 * it is on in every app or in none (a trace through an app with tracing off breaks there and starts
 * again after it); and where it is on, the spans go to a collector named in the settings, not to the
 * exporter's default of localhost inside the pod. Values the apps would refuse are checkEnv's.
 */
export function checkTracing(objects: K8sObject[], apps: AppFacts[]): Problem[] {
  const problems: Problem[] = [];
  const configMaps = ofKind<ConfigMap>(objects, 'ConfigMap');
  const state = new Map<string, boolean>();
  for (const app of apps) {
    const { deployment } = workloadsOf(objects, app);
    if (!deployment?.container) continue;
    const where = ref(deployment.obj);
    const { vars } = resolveEnv(deployment.container, configMaps, where);
    const env = Object.fromEntries(
      [...vars.keys()].flatMap((k) => (literal(vars, k) === undefined ? [] : [[k, literal(vars, k) as string]])),
    );
    if (!vars.has('OTEL_TRACES_EXPORTER')) {
      problems.push({ where, message: 'OTEL_TRACES_EXPORTER is not set: state tracing, otlp (on) or none (off)' });
    }
    let on: boolean;
    try {
      on = readTracingEnv(env).enabled;
    } catch {
      continue; // a value the app refuses: checkEnv names it
    }
    state.set(app.name, on);
    const endpoint = TRACES_ENDPOINT_VARS.map((v) => env[v]?.trim()).find(Boolean);
    if (on && !endpoint) {
      problems.push({ where, message: `tracing is on but no collector is set (${TRACES_ENDPOINT_VARS.join(' or ')})` });
    } else if (on && /^\w+:\/\/(localhost|127\.|\[::1\])/.test(endpoint ?? '')) {
      problems.push({ where, message: `tracing is on and sends spans to ${endpoint}, inside the pod` });
    }
  }
  const onIn = [...state].filter(([, on]) => on).map(([name]) => name);
  const offIn = [...state].filter(([, on]) => !on).map(([name]) => name);
  if (onIn.length > 0 && offIn.length > 0) {
    for (const name of offIn) {
      problems.push({
        where: `Deployment/${name}`,
        message: `tracing is off, but on in ${onIn.join(', ')}: traces would break at ${name}`,
      });
    }
  }
  return problems;
}

/** Every check of the rendered manifests (schemas aside). */
export function checkManifests(objects: K8sObject[], apps: AppFacts[]): Problem[] {
  return [
    ...checkInventory(objects, apps),
    ...checkImages(objects, apps),
    ...checkPorts(objects, apps),
    ...checkProbes(objects, apps),
    ...checkEnv(objects, apps),
    ...checkSecurity(objects, apps),
    ...checkScaling(objects, apps),
    ...checkNetworkPolicies(objects, apps),
    ...checkJobs(objects, apps),
    ...checkTracing(objects, apps),
  ];
}

/** Problems as lines, for a readable test failure. */
export const format = (problems: Problem[]): string[] => problems.map((p) => `${p.where}: ${p.message}`);
