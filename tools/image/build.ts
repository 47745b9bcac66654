import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBaseImage } from './base';
import { imageSize, podman, podmanOk, requireCommands, withBuildLock } from './podman';

const ROOT = join(__dirname, '..', '..');

/** The image this tool builds by default (the dev overlay runs `pim-platform:dev`). */
export const DEFAULT_IMAGE = 'localhost/pim-platform:dev';

/** The dependencies' build stage, named so that pruning what older builds left keeps its cache. */
export const DEPS_CACHE_IMAGE = 'localhost/pim-platform-build:deps';

/** The label every layer of deploy/Dockerfile carries (its first stage sets it): what pruning may remove. */
export const IMAGE_LABEL = 'io.pim.image=pim-platform';

/** The build machine's CA bundle: given to the build's downloads (a TLS-intercepting proxy's CA). */
const HOST_CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

/** A built image, how long the build took and its size. */
export interface BuiltImage {
  image: string;
  ms: number;
  bytes: number;
}

/**
 * Builds deploy/Dockerfile from the repository with podman on `base` (the local bookworm), then
 * removes the dangling layers older builds of it left (the cache this build uses stays). `ms`
 * includes any wait for another build of the image on this machine.
 */
export async function buildImage(opts: {
  base: string;
  image?: string;
  onOutput?: (chunk: string) => void;
}): Promise<BuiltImage> {
  requireCommands(['podman', 'runc'], 'building the image');
  const image = opts.image ?? DEFAULT_IMAGE;
  const started = Date.now();
  const build = [
    'build',
    // The build's downloads (Debian, the npm registry) use the host's network: no bridge needed.
    '--network',
    'host',
    '--file',
    join(ROOT, 'deploy', 'Dockerfile'),
    '--build-arg',
    `BASE_IMAGE=${opts.base}`,
    ...(existsSync(HOST_CA_BUNDLE) ? ['--secret', `id=build-ca,src=${HOST_CA_BUNDLE}`] : []),
  ];
  return withBuildLock(async () => {
    await podmanOk([...build, '--target', 'deps', '--tag', DEPS_CACHE_IMAGE, ROOT], { onOutput: opts.onOutput });
    await podmanOk([...build, '--tag', image, ROOT], { onOutput: opts.onOutput });
    const ms = Date.now() - started;
    await podman(['image', 'prune', '--force', '--filter', `label=${IMAGE_LABEL}`]);
    return { image, ms, bytes: await imageSize(image) };
  });
}

/** `node -r @swc-node/register tools/image/build.ts [image]`: the base if missing, then the image. */
async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const base = await ensureBaseImage(log);
  log(`base ${base.image}: ${base.created ? `made in ${(base.ms / 1000).toFixed(0)} s` : 'reused'}`);
  const built = await buildImage({
    base: base.image,
    image: process.argv[2],
    onOutput: (c) => process.stdout.write(c),
  });
  log(`${built.image}: built in ${(built.ms / 1000).toFixed(0)} s, ${(built.bytes / 1e6).toFixed(0)} MB`);
}

if (require.main === module) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
