/** A Kubernetes object as kustomize renders it (plain JSON after YAML parsing). */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** A problem found in the manifests: where, and what. */
export interface Problem {
  /** `<Kind>/<name>` of the object, or the file. */
  where: string;
  message: string;
}

export type Labels = Record<string, string>;

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
    fieldRef?: unknown;
    resourceFieldRef?: unknown;
  };
}

export interface EnvFromSource {
  configMapRef?: { name: string; optional?: boolean };
  secretRef?: { name: string; optional?: boolean };
  prefix?: string;
}

export interface Probe {
  grpc?: { port: number; service?: string };
  httpGet?: { path?: string; port: number | string; scheme?: string };
  tcpSocket?: { port: number | string };
  exec?: unknown;
  periodSeconds?: number;
  timeoutSeconds?: number;
  failureThreshold?: number;
}

export interface ContainerPort {
  name?: string;
  containerPort: number;
  protocol?: string;
}

export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  runAsGroup?: number;
  fsGroup?: number;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  privileged?: boolean;
  capabilities?: { add?: string[]; drop?: string[] };
  seccompProfile?: { type: string };
}

export interface Container {
  name: string;
  image?: string;
  args?: string[];
  command?: string[];
  env?: EnvVar[];
  envFrom?: EnvFromSource[];
  ports?: ContainerPort[];
  startupProbe?: Probe;
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  lifecycle?: { preStop?: { sleep?: { seconds: number }; exec?: unknown; httpGet?: unknown } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: SecurityContext;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface Volume {
  name: string;
  emptyDir?: { sizeLimit?: string; medium?: string };
  persistentVolumeClaim?: { claimName: string; readOnly?: boolean };
  [source: string]: unknown;
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  securityContext?: SecurityContext;
  terminationGracePeriodSeconds?: number;
  restartPolicy?: string;
}

export interface PodTemplate {
  metadata?: { labels?: Labels; annotations?: Record<string, string> };
  spec: PodSpec;
}

export interface Deployment extends K8sObject {
  kind: 'Deployment';
  spec: { replicas?: number; selector: { matchLabels?: Labels }; template: PodTemplate };
}

export interface Job extends K8sObject {
  kind: 'Job';
  spec: { template: PodTemplate; backoffLimit?: number };
}

export interface Service extends K8sObject {
  kind: 'Service';
  spec: {
    selector?: Labels;
    clusterIP?: string;
    ports: { name?: string; port: number; targetPort?: number | string; protocol?: string; appProtocol?: string }[];
  };
}

export interface HorizontalPodAutoscaler extends K8sObject {
  kind: 'HorizontalPodAutoscaler';
  spec: {
    scaleTargetRef: { apiVersion?: string; kind: string; name: string };
    minReplicas?: number;
    maxReplicas: number;
    metrics?: unknown[];
  };
}

export interface PodDisruptionBudget extends K8sObject {
  kind: 'PodDisruptionBudget';
  spec: { selector?: { matchLabels?: Labels }; minAvailable?: number | string; maxUnavailable?: number | string };
}

export interface NetworkPolicyPeer {
  podSelector?: { matchLabels?: Labels; matchExpressions?: unknown[] };
  namespaceSelector?: { matchLabels?: Labels; matchExpressions?: unknown[] };
  ipBlock?: { cidr: string };
}

export interface NetworkPolicy extends K8sObject {
  kind: 'NetworkPolicy';
  spec: {
    podSelector: { matchLabels?: Labels };
    policyTypes?: string[];
    ingress?: { from?: NetworkPolicyPeer[]; ports?: { port?: number | string; protocol?: string }[] }[];
  };
}

export interface ConfigMap extends K8sObject {
  kind: 'ConfigMap';
  data?: Record<string, string>;
}

/** `Kind/name`, how problems name an object. */
export const ref = (o: K8sObject): string => `${o.kind}/${o.metadata?.name ?? '?'}`;

/** Whether every label of `selector` is on `labels` (an empty selector matches nothing here). */
export function selects(selector: Labels | undefined, labels: Labels | undefined): boolean {
  const entries = Object.entries(selector ?? {});
  return entries.length > 0 && entries.every(([k, v]) => labels?.[k] === v);
}

/** The objects of one kind, typed. */
export function ofKind<T extends K8sObject>(objects: K8sObject[], kind: T['kind']): T[] {
  return objects.filter((o): o is T => o.kind === kind);
}

/** A deep copy (checks' negative tests mutate copies, never the rendered objects). */
export function clone<T>(value: T): T {
  return structuredClone(value);
}
