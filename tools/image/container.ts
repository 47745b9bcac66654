import { type CommandResult, RUN_LIMITS, podman, podmanOk } from './podman';

/** The label of every container this folder starts, and of the process that started it. */
const LABEL = 'io.pim.test=image';
const PID_LABEL = 'io.pim.test.pid';

/** How a container of the image runs: one app, its command, its environment and its /tmp. */
export interface ContainerSpec {
  image: string;
  app: string;
  /** `main` (the default) or `migrate`. */
  command?: 'main' | 'migrate';
  env?: Record<string, string>;
  /**
   * What is mounted at /tmp: a tmpfs (the default), or a host folder — made 0777 without the
   * sticky bit, it is what a Kubernetes emptyDir looks like from inside the container.
   */
  tmp?: { hostDir: string };
}

/** One process inside a container. */
export interface ContainerProcess {
  pid: number;
  /** argv[0]: `/usr/bin/tini`, `node`… */
  command: string;
  uid: number;
  gid: number;
}

/**
 * The flags the manifests' securityContext amounts to: uid/gid 1000, read-only root, no
 * capabilities, no privilege escalation. Host networking: the apps reach the machine's Postgres
 * and NATS on 127.0.0.1 and listen on the free ports they are given.
 */
function runFlags(spec: ContainerSpec): string[] {
  const tmp = spec.tmp ? ['--volume', `${spec.tmp.hostDir}:/tmp`] : ['--tmpfs', '/tmp:rw,size=256m'];
  const env = Object.entries({ APP: spec.app, ...spec.env }).flatMap(([k, v]) => ['--env', `${k}=${v}`]);
  return [
    ...RUN_LIMITS,
    '--network=host',
    '--read-only',
    '--read-only-tmpfs=false',
    ...tmp,
    '--user=1000:1000',
    '--cap-drop=ALL',
    '--security-opt=no-new-privileges',
    '--label',
    LABEL,
    '--label',
    `${PID_LABEL}=${process.pid}`,
    ...env,
  ];
}

/** A running container of the image. */
export class Container {
  constructor(readonly name: string) {}

  /** What the container printed so far. */
  async logs(): Promise<string> {
    const r = await podman(['logs', this.name]);
    return r.stdout + r.stderr;
  }

  /** Runs a command inside the container (as its user). */
  exec(command: string[]): Promise<CommandResult> {
    return podman(['exec', this.name, ...command]);
  }

  /** Every process in the container (but this call's own shell), read from /proc inside it. */
  async processes(): Promise<ContainerProcess[]> {
    const script =
      'for d in /proc/[0-9]*; do [ "${d#/proc/}" = $$ ] || [ ! -r "$d/status" ] && continue; ' +
      "echo \"${d#/proc/} $(tr '\\0' ' ' <\"$d/cmdline\" | cut -d' ' -f1) " +
      '$(awk \'/^Uid:/{u=$2} /^Gid:/{g=$2} END{print u, g}\' "$d/status")"; done';
    const out = await podmanOk(['exec', this.name, 'sh', '-c', script]);
    return out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [pid, command, uid, gid] = line.split(' ');
        return { pid: Number(pid), command, uid: Number(uid), gid: Number(gid) };
      })
      .filter((p) => p.command !== '' && !['sh', 'tr', 'cut', 'awk'].includes(p.command));
  }

  /** Whether the container still runs. */
  async running(): Promise<boolean> {
    const r = await podman(['inspect', '--format', '{{.State.Running}}', this.name]);
    return r.stdout.trim() === 'true';
  }

  /** `podman stop` (SIGTERM, SIGKILL after `timeoutS`): how long it took and the exit code. */
  async stop(timeoutS: number): Promise<{ ms: number; exitCode: number }> {
    const started = Date.now();
    await podmanOk(['stop', '--time', String(timeoutS), this.name]);
    const ms = Date.now() - started;
    const exitCode = Number(await podmanOk(['inspect', '--format', '{{.State.ExitCode}}', this.name]));
    return { ms, exitCode };
  }
}

/** The containers a test starts, all removed by removeAll() (also after a failure). */
export class Containers {
  private readonly names: string[] = [];

  /** `prefix` names every container (`<prefix>-<app>-<n>`), so a leftover is easy to spot. */
  constructor(private readonly prefix: string) {}

  /** Runs the image to its end (`migrate`); the container is removed when it exits. */
  async runToEnd(spec: ContainerSpec): Promise<CommandResult> {
    const name = this.nameFor(spec.app);
    return podman(['run', '--rm', '--name', name, ...runFlags(spec), spec.image, spec.command ?? 'main']);
  }

  /** Starts the image in the background (`main`). */
  async start(spec: ContainerSpec): Promise<Container> {
    const name = this.nameFor(spec.app);
    await podmanOk(['run', '--detach', '--name', name, ...runFlags(spec), spec.image, spec.command ?? 'main']);
    return new Container(name);
  }

  /** Removes every container started here, running or not. */
  async removeAll(): Promise<void> {
    if (this.names.length > 0) await podmanOk(['rm', '--force', '--ignore', '--time', '0', ...this.names]);
  }

  private nameFor(app: string): string {
    const name = `${this.prefix}-${app}-${this.names.length + 1}`;
    this.names.push(name);
    return name;
  }
}

/** Removes the containers earlier runs left behind: those whose starting process is gone. */
export async function removeOrphans(): Promise<void> {
  const out = await podmanOk([
    'ps',
    '--all',
    '--filter',
    `label=${LABEL}`,
    '--format',
    `{{.Names}} {{index .Labels "${PID_LABEL}"}}`,
  ]);
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const orphans = out
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split(' '))
    .filter(([, pid]) => !alive(Number(pid)))
    .map(([name]) => name);
  if (orphans.length > 0) await podman(['rm', '--force', '--time', '0', ...orphans]);
}
