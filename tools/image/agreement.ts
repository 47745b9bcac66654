import {
  type Container,
  type Deployment,
  type Job,
  type K8sObject,
  type PodSpec,
  ofKind,
  ref,
} from '../deploy/objects';
import type { DockerfileFacts } from './dockerfile';

/** The init every container must start with: it forwards SIGTERM and reaps orphans as PID 1. */
export const INIT = '/usr/bin/tini';

/** What a workload's container runs: a Job the app's migrations, a Deployment the app itself. */
const expectedArgs = (kind: 'Deployment' | 'Job') => (kind === 'Job' ? ['migrate'] : ['main']);

function containerProblems(where: string, kind: 'Deployment' | 'Job', pod: PodSpec, c: Container, uid: string) {
  const problems: string[] = [];
  const security = { ...pod.securityContext, ...c.securityContext };
  const runsAs = `${security.runAsUser}:${security.runAsGroup}`;
  if (runsAs !== uid) problems.push(`${where} runs as ${runsAs}, the image's user is ${uid}`);
  if (security.readOnlyRootFilesystem !== true) problems.push(`${where} does not make the root read-only`);
  const tmp = c.volumeMounts?.find((m) => m.mountPath === '/tmp');
  if (!tmp || !pod.volumes?.find((v) => v.name === tmp.name)?.emptyDir) {
    problems.push(`${where} mounts no emptyDir at /tmp (the only place an app may write)`);
  }
  if (c.command) problems.push(`${where} sets command, which replaces the image's entry point (tini, then the app)`);
  const args = c.args ?? ['main'];
  if (JSON.stringify(args) !== JSON.stringify(expectedArgs(kind))) {
    problems.push(`${where} runs ${JSON.stringify(args)}, expected ${JSON.stringify(expectedArgs(kind))}`);
  }
  return problems;
}

/** Where deploy/Dockerfile and the rendered manifests disagree, one line each; empty when they agree. */
export function imageVsManifests(objects: K8sObject[], image: DockerfileFacts): string[] {
  const problems: string[] = [];
  const uid = image.user ?? '(none)';
  if (!/^\d+:\d+$/.test(uid)) problems.push(`the image's USER is ${uid}: runAsNonRoot needs a numeric uid:gid`);
  if (image.entrypoint?.[0] !== INIT) problems.push(`the image's ENTRYPOINT does not start with ${INIT}`);
  if (JSON.stringify(image.cmd) !== JSON.stringify(['main'])) problems.push(`the image's CMD is not ["main"]`);
  const workloads = [...ofKind<Deployment>(objects, 'Deployment'), ...ofKind<Job>(objects, 'Job')];
  for (const w of workloads) {
    const pod = w.spec.template.spec;
    for (const c of [...(pod.initContainers ?? []), ...pod.containers]) {
      problems.push(...containerProblems(`${ref(w)}:${c.name}`, w.kind, pod, c, uid));
    }
  }
  return problems;
}
