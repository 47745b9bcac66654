import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTree } from '@nx/devkit/testing';
import type { Tree } from '@nx/devkit';
import appGenerator from './app.generator';

const root = join(__dirname, '..', '..', '..', '..');
/** The files the generator edits, as they are in the repository. */
const EDITED = [
  'tools/start/apps.ts',
  'tools/db/drift.ts',
  'libs/contracts/src/proto-files.ts',
  'libs/contracts/src/index.ts',
  'deploy/k8s/base/kustomization.yaml',
  'deploy/k8s/base/config.yaml',
];

function repoTree(): Tree {
  const tree = createTree();
  for (const path of EDITED) tree.write(path, readFileSync(join(root, path), 'utf8'));
  return tree;
}

describe('app generator', () => {
  it('writes an app whose main.ts goes through the bootstrap, and registers it everywhere an app is listed', async () => {
    const tree = repoTree();
    await appGenerator(tree, { name: 'io-jobs' });
    const text = (p: string) => tree.read(p, 'utf-8') ?? '';
    for (const file of [
      'apps/io-jobs/package.json',
      'apps/io-jobs/src/app.ts',
      'apps/io-jobs/src/main.ts',
      'apps/io-jobs/src/migrate.ts',
      'apps/io-jobs/src/config.ts',
      'apps/io-jobs/src/data-source.ts',
      'apps/io-jobs/src/migrations/index.ts',
      'apps/io-jobs/src/app.int.spec.ts',
      'protos/pim/iojobs/v1/iojobs.proto',
      'deploy/k8s/base/io-jobs.yaml',
      'docs/apps/io-jobs.md',
    ]) {
      expect(tree.exists(file)).toBe(true);
    }
    expect(text('apps/io-jobs/src/main.ts')).toContain('void runApp(ioJobsApp);');
    expect(text('apps/io-jobs/src/data-source.ts')).toContain("export const SCHEMA = 'io_jobs';");
    expect(text('protos/pim/iojobs/v1/iojobs.proto')).toContain('package pim.iojobs.v1;');
    expect(text('libs/contracts/src/proto-files.ts')).toContain("ioJobs: 'pim/iojobs/v1/iojobs.proto',");
    expect(text('libs/contracts/src/index.ts')).toContain("export * as ioJobs from './gen/pim/iojobs/v1/iojobs';");
    expect(text('tools/db/drift.ts')).toContain(
      "import { dataSourceOptions as ioJobs } from '../../apps/io-jobs/src/data-source';",
    );
    expect(text('deploy/k8s/base/kustomization.yaml')).toContain('- io-jobs.yaml');
    // Started with the gRPC apps, before the gateway, on the next free port.
    const apps = text('tools/start/apps.ts');
    expect(apps.indexOf("name: 'io-jobs'")).toBeLessThan(apps.indexOf("name: 'gateway'"));
    const ports = [...apps.matchAll(/port: (\d+)/g)].map((m) => Number(m[1]));
    expect(new Set(ports).size).toBe(ports.length);
    expect(text('deploy/k8s/base/config.yaml')).toMatch(/IO_JOBS_GRPC_URL: io-jobs:\d+/);
  });

  it('refuses an app that exists already', async () => {
    const tree = repoTree();
    tree.write('apps/demo/package.json', '{}');
    await expect(appGenerator(tree, { name: 'demo' })).rejects.toThrow('apps/demo exists already');
  });
});
