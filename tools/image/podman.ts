import { spawn, spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** What a finished command printed and how it ended. */
export interface CommandResult {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** The packages that give this folder's tools (Debian bookworm). */
export const INSTALL_HINT = 'apt-get update && apt-get install -y podman buildah runc debootstrap';

/**
 * Flags every podman call takes here: runc (crun fails with `setrlimit EPERM` on these machines).
 * `run` also needs RUN_LIMITS: podman's default rlimits cannot be set either.
 */
export const PODMAN = ['--runtime', 'runc'];
export const RUN_LIMITS = ['--ulimit', 'nofile=1024:1024', '--ulimit', 'nproc=1024:1024'];

/** Whether `name` is an executable on the PATH (or in /usr/sbin, where debootstrap lives). */
export function hasCommand(name: string): boolean {
  return (
    spawnSync('/bin/sh', ['-c', `command -v ${name} || test -x /usr/sbin/${name}`], { stdio: 'ignore' }).status === 0
  );
}

/** The commands of `names` this machine lacks. */
export function missingCommands(names: string[]): string[] {
  return names.filter((n) => !hasCommand(n));
}

/** Throws, naming what to install, unless every command is there. */
export function requireCommands(names: string[], why: string): void {
  const missing = missingCommands(names);
  if (missing.length > 0) {
    throw new Error(`${missing.join(', ')} not found: ${why} needs them. Install with: ${INSTALL_HINT}`);
  }
}

/** What the image test runs: podman builds and runs the image, with runc, on a base debootstrap makes. */
export const IMAGE_TEST_COMMANDS = ['podman', 'runc', 'debootstrap'];

/** Set to 1, the image test may not be skipped: a missing command fails it (`.ci/run` sets it). */
export const REQUIRE_IMAGE_TESTS = 'PIM_REQUIRE_IMAGE_TESTS';

/** Whether the environment demands the image test (`PIM_REQUIRE_IMAGE_TESTS=1` or `true`). */
export function imageTestsRequired(env: NodeJS.ProcessEnv): boolean {
  return ['1', 'true'].includes((env[REQUIRE_IMAGE_TESTS] ?? '').trim().toLowerCase());
}

/**
 * Why the image test is skipped, or undefined when it runs. It runs where its commands are, so
 * `npm test` passes on a development machine without them; there it is skipped with this reason.
 * CI demands it (REQUIRE_IMAGE_TESTS): then it runs anyway and fails naming what is missing, so a
 * CI machine that lost podman can never pass by skipping it.
 */
export function imageTestSkipReason(missing: string[], env: NodeJS.ProcessEnv): string | undefined {
  if (missing.length === 0 || imageTestsRequired(env)) return undefined;
  return (
    `skipped: ${missing.join(', ')} not found on this machine. Install with: ${INSTALL_HINT}; ` +
    `${REQUIRE_IMAGE_TESTS}=1 (as .ci/run sets) makes a missing command a failure instead`
  );
}

/** Runs a command to its end; `onOutput` sees its output as it comes (a long build's progress). */
export function run(
  command: string,
  args: string[],
  opts: { input?: string; onOutput?: (chunk: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandResult> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'pipe'], env: opts.env ?? process.env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b: Buffer) => {
      stdout += b.toString();
      opts.onOutput?.(b.toString());
    });
    child.stderr.on('data', (b: Buffer) => {
      stderr += b.toString();
      opts.onOutput?.(b.toString());
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code: code ?? -1, stdout, stderr, ms: Date.now() - started }));
    child.stdin.end(opts.input ?? '');
  });
}

/** `podman <args>` with the flags this machine needs. */
export function podman(args: string[], opts: Parameters<typeof run>[2] = {}): Promise<CommandResult> {
  return run('podman', [...PODMAN, ...args], opts);
}

/** `podman <args>`, throwing with its output unless it exits 0; resolves to its trimmed stdout. */
export async function podmanOk(args: string[], opts: Parameters<typeof run>[2] = {}): Promise<string> {
  const r = await podman(args, opts);
  if (r.code !== 0) throw new Error(`podman ${args.join(' ')} exited with ${r.code}:\n${r.stderr}${r.stdout}`);
  return r.stdout.trim();
}

/** Whether the local store holds `image`. */
export async function imageExists(image: string): Promise<boolean> {
  return (await podman(['image', 'exists', image])).code === 0;
}

/** The image's size in bytes as podman reports it. */
export async function imageSize(image: string): Promise<number> {
  return Number(await podmanOk(['image', 'inspect', '--format', '{{.Size}}', image]));
}

/** The lock builds of the image on one machine take turns on (two test runs at once, say). */
const BUILD_LOCK = join(tmpdir(), 'pim-image-build.lock');

/**
 * Runs `fn` holding the build lock (util-linux `flock`), so one build never prunes the layers
 * another is still using; the lock goes when `fn` ends or this process dies.
 */
export async function withBuildLock<T>(fn: () => Promise<T>): Promise<T> {
  const holder = spawn('flock', [BUILD_LOCK, 'sh', '-c', 'echo locked; exec cat'], {
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  await new Promise<void>((resolve, reject) => {
    holder.stdout.once('data', () => resolve());
    holder.once('error', reject);
    holder.once('exit', (code) => reject(new Error(`flock ${BUILD_LOCK} exited with ${code}`)));
  });
  try {
    return await fn();
  } finally {
    holder.stdin.end();
  }
}
