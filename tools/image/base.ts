import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { imageExists, requireCommands, run, withBuildLock } from './podman';

const ROOT = join(__dirname, '..', '..');

/** The script that makes the base (Debian bookworm, minbase, slimmed) without a registry. */
export const BASE_SCRIPT = join(ROOT, 'deploy', 'image', 'make-base.sh');

/** The base image made by BASE_SCRIPT, named after the script's content: a change makes a new one. */
export function baseImageName(): string {
  const digest = createHash('sha256').update(readFileSync(BASE_SCRIPT)).digest('hex').slice(0, 12);
  return `localhost/pim-base:bookworm-${digest}`;
}

/** The base image, and whether this call made it (and how long that took). */
export interface BaseImage {
  image: string;
  created: boolean;
  ms: number;
}

/**
 * The local stand-in for debian:bookworm-slim (no registry is reachable here): reused when the
 * store has it, else made with debootstrap from Debian's mirror (root only; a minute or two).
 */
export async function ensureBaseImage(log: (line: string) => void = () => undefined): Promise<BaseImage> {
  const image = baseImageName();
  const started = Date.now();
  if (await imageExists(image)) return { image, created: false, ms: Date.now() - started };
  requireCommands(['podman', 'debootstrap'], `making the base image ${image}`);
  if (process.getuid?.() !== 0) throw new Error(`making the base image ${image} needs root (debootstrap)`);
  return withBuildLock(async () => {
    // Another run may have made it while this one waited for the lock.
    if (await imageExists(image)) return { image, created: false, ms: Date.now() - started };
    log(`making ${image} with debootstrap (${BASE_SCRIPT})`);
    const r = await run('sh', [BASE_SCRIPT, image]);
    if (r.code !== 0) {
      throw new Error(`${BASE_SCRIPT} exited with ${r.code}:\n${(r.stderr + r.stdout).slice(-4000)}`);
    }
    return { image, created: true, ms: Date.now() - started };
  });
}
