// Validates Kubernetes objects against the API's schemas, offline: reads a JSON array of objects on
// stdin and writes a JSON array of problems ({ where, message }) on stdout.
//
// The schemas are those of the exactly pinned `kubernetes-models` dev dependency (5.1.0: the
// OpenAPI of Kubernetes v1.36.0), precompiled validators per definition. They are an ES module
// package, which jest's CommonJS runtime cannot load, hence this separate process
// (tools/deploy/schemas.ts runs it).
//
// Strict like `kubectl apply` (server-side field validation, Strict by default): the OpenAPI
// definitions do not forbid unknown fields, so each object is validated through a proxy that
// records which fields the validators read; every validator reads each field its definition
// declares, so a field nobody read (`readinesProbe`, `contianerPort`) is unknown to the API.
// Maps (labels, ConfigMap data…) are iterated by their validators and so count as read.

/** The kinds the manifests may use, each at an API version Kubernetes v1.36 serves. */
export const KINDS = {
  'v1/ConfigMap': 'IoK8sApiCoreV1ConfigMap',
  'v1/Secret': 'IoK8sApiCoreV1Secret',
  'v1/Service': 'IoK8sApiCoreV1Service',
  'v1/ServiceAccount': 'IoK8sApiCoreV1ServiceAccount',
  'v1/PersistentVolumeClaim': 'IoK8sApiCoreV1PersistentVolumeClaim',
  'apps/v1/Deployment': 'IoK8sApiAppsV1Deployment',
  'batch/v1/Job': 'IoK8sApiBatchV1Job',
  'policy/v1/PodDisruptionBudget': 'IoK8sApiPolicyV1PodDisruptionBudget',
  'autoscaling/v2/HorizontalPodAutoscaler': 'IoK8sApiAutoscalingV2HorizontalPodAutoscaler',
  'networking.k8s.io/v1/NetworkPolicy': 'IoK8sApiNetworkingV1NetworkPolicy',
};

/** A proxy of `value` that records, per object, the fields read; `records` collects them. */
function tracked(value, path, records) {
  if (value === null || typeof value !== 'object') return value;
  const read = new Set();
  records.push({ path, value, read });
  const children = new Map();
  const mark = (key) => {
    if (typeof key === 'string') read.add(key);
  };
  return new Proxy(value, {
    get(target, key, receiver) {
      mark(key);
      const child = Reflect.get(target, key, receiver);
      if (typeof key !== 'string' || child === null || typeof child !== 'object' || !Object.hasOwn(target, key)) {
        return child;
      }
      if (!children.has(key)) children.set(key, tracked(child, [...path, key], records));
      return children.get(key);
    },
    has(target, key) {
      mark(key);
      return Reflect.has(target, key);
    },
    getOwnPropertyDescriptor(target, key) {
      mark(key);
      return Reflect.getOwnPropertyDescriptor(target, key);
    },
    ownKeys(target) {
      const keys = Reflect.ownKeys(target);
      keys.forEach(mark);
      return keys;
    },
  });
}

/** An error of the precompiled validators (compiled without messages) in words. */
function describe(e) {
  const p = e.params ?? {};
  if (e.keyword === 'type') return `must be ${p.type}`;
  if (e.keyword === 'enum') return `must be one of ${p.allowedValues.join(', ')}`;
  if (e.keyword === 'required') return `misses the required field ${p.missingProperty}`;
  if (e.keyword === 'format') return `must be in the format ${p.format}`;
  return `fails ${e.keyword} ${JSON.stringify(p)}`;
}

const pointer = (path) => (path.length === 0 ? '(object)' : path.join('.'));

/** The problems of one object: unknown kind, schema errors, unknown fields. */
export async function validateObject(object) {
  const where = `${object?.kind ?? '?'}/${object?.metadata?.name ?? '?'}`;
  const id = KINDS[`${object?.apiVersion}/${object?.kind}`];
  if (!id) {
    const known = Object.keys(KINDS).join(', ');
    return [{ where, message: `${object?.apiVersion} ${object?.kind} is not a kind these manifests use (${known})` }];
  }
  const { validate } = await import(`kubernetes-models/_schemas/${id}`);
  const records = [];
  const valid = validate(tracked(object, [], records));
  const problems = [];
  if (!valid) {
    for (const e of validate.errors ?? []) {
      const at = e.instancePath ? e.instancePath.slice(1).replace(/\//g, '.') : '(object)';
      problems.push({ where, message: `schema: ${at} ${describe(e)}` });
    }
  }
  for (const { path, value, read } of records) {
    if (Array.isArray(value)) continue;
    for (const key of Object.keys(value)) {
      if (!read.has(key))
        problems.push({ where, message: `schema: ${pointer([...path, key])} is not a field of the API` });
    }
  }
  return problems;
}

async function main() {
  let input = '';
  for await (const chunk of process.stdin) input += chunk;
  const objects = JSON.parse(input);
  const problems = (await Promise.all(objects.map(validateObject))).flat();
  process.stdout.write(JSON.stringify(problems));
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    process.stderr.write(String(err?.stack ?? err));
    process.exit(1);
  });
}
