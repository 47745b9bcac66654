import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Deployment, type Job, type K8sObject, clone, ofKind } from '../deploy/objects';
import { OVERLAYS, type Overlay, renderOverlay } from '../deploy/render';
import { imageVsManifests } from './agreement';
import { dockerfileFacts, lockedNodeVersion } from './dockerfile';

// deploy/Dockerfile against what runs it: the manifests' user, read-only root, /tmp and commands
// (tools/image/image.e2e.spec.ts builds and starts the image itself), and the repository's Node.
const rendered = {} as Record<Overlay, K8sObject[]>;

beforeAll(async () => {
  const objects = await Promise.all(OVERLAYS.map(renderOverlay));
  OVERLAYS.forEach((overlay, i) => (rendered[overlay] = objects[i]));
});

describe('deploy/Dockerfile', () => {
  it.each(OVERLAYS)('agrees with the %s overlay: user, read-only root, /tmp, main and migrate', (overlay) => {
    expect(imageVsManifests(rendered[overlay], dockerfileFacts())).toEqual([]);
  });

  it('runs the Node the tests run on (the `node` dev dependency in package-lock.json)', () => {
    expect(dockerfileFacts().args.NODE_VERSION).toBe(lockedNodeVersion());
  });

  it('runs the JavaScript of the build with plain node: no compiler among the dependencies it installs', () => {
    const root = join(__dirname, '..', '..');
    const text = (path: string) => readFileSync(join(root, path), 'utf8');
    const compiler = /^(@swc\/|@swc-node\/|typescript$|ts-node$)/;
    const pkg = JSON.parse(text('package.json')) as { dependencies: Record<string, string> };
    expect(Object.keys(pkg.dependencies).filter((d) => compiler.test(d))).toEqual([]);
    // Nor through another package: the lockfile marks every compiler package as a dev one.
    const lock = JSON.parse(text('package-lock.json')) as { packages: Record<string, { dev?: boolean }> };
    const shipped = Object.entries(lock.packages).filter(([path, p]) => !p.dev && path.startsWith('node_modules/'));
    expect(shipped.map(([path]) => path.slice('node_modules/'.length)).filter((name) => compiler.test(name))).toEqual(
      [],
    );
    const entrypoint = text('deploy/image/entrypoint.sh');
    expect(entrypoint).toContain('exec node -r ./dist/libs/app/src/source-maps.js "$entry"');
    expect(entrypoint).not.toContain('swc');
  });

  it('names a manifest that runs as another user, replaces the entry point or runs the wrong command', () => {
    const objects = clone(rendered.prod);
    const gateway = ofKind<Deployment>(objects, 'Deployment').find((d) => d.metadata.name === 'gateway')!;
    gateway.spec.template.spec.securityContext!.runAsUser = 1001;
    const migrate = ofKind<Job>(objects, 'Job').find((j) => j.metadata.name === 'catalog-migrate')!;
    migrate.spec.template.spec.containers[0].command = ['node'];
    migrate.spec.template.spec.containers[0].args = ['main'];
    expect(imageVsManifests(objects, dockerfileFacts())).toEqual([
      "Deployment/gateway:gateway runs as 1001:1000, the image's user is 1000:1000",
      "Job/catalog-migrate:migrate sets command, which replaces the image's entry point (tini, then the app)",
      'Job/catalog-migrate:migrate runs ["main"], expected ["migrate"]',
    ]);
  });

  it('names an image without a numeric user or without tini', () => {
    const facts = { ...dockerfileFacts(), user: 'pim', entrypoint: ['/usr/local/bin/pim'] };
    expect(imageVsManifests([], facts)).toEqual([
      "the image's USER is pim: runAsNonRoot needs a numeric uid:gid",
      "the image's ENTRYPOINT does not start with /usr/bin/tini",
    ]);
  });
});
