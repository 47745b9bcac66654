import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTree } from '@nx/devkit/testing';
import type { Tree } from '@nx/devkit';
import appGenerator from '../app/app.generator';
import resourceGenerator from './resource.generator';

const root = join(__dirname, '..', '..', '..', '..');
/** The files the app and resource generators edit, as they are in the repository. */
const EDITED = [
  'tools/start/apps.ts',
  'tools/db/drift.ts',
  'libs/contracts/src/proto-files.ts',
  'libs/contracts/src/index.ts',
  'deploy/k8s/base/kustomization.yaml',
  'deploy/k8s/base/config.yaml',
  'libs/resources/src/index.ts',
  'apps/gateway/src/routes/owners.ts',
];

/** A virtual copy of the repository's edited files with a fresh io-jobs app from the app generator. */
async function treeWithNewApp(): Promise<Tree> {
  const tree = createTree();
  for (const path of EDITED) tree.write(path, readFileSync(join(root, path), 'utf8'));
  await appGenerator(tree, { name: 'io-jobs' });
  return tree;
}

// In a scratch clone, `nx g @pim/generators:resource users_groups` followed by `npm test` passed
// every step, and the workflow app's resources came from it; this keeps the generator's edits in
// shape without running the whole suite, on an app the app generator has just made.
describe('resource generator', () => {
  it('writes declared resources into their app and the gateway, wired everywhere they must be listed', async () => {
    const tree = await treeWithNewApp();
    await resourceGenerator(tree, { collection: 'imports' });
    // A second resource: the edits find their places again once the files hold one.
    await resourceGenerator(tree, { collection: 'exports' });
    const text = (p: string) => tree.read(p, 'utf-8') ?? '';
    for (const file of [
      'libs/resources/src/import.ts',
      'libs/resources/src/export.ts',
      'apps/io-jobs/src/entities/import.entity.ts',
      'apps/io-jobs/src/entities/export.entity.ts',
      'apps/io-jobs/src/import/import.resource.ts',
      'apps/io-jobs/src/import/import.grpc.ts',
      'apps/io-jobs/src/import/import.contract.spec.ts',
      'apps/io-jobs/src/import/import.service.int.spec.ts',
      'apps/io-jobs/src/export/export.resource.ts',
      'apps/io-jobs/src/io-jobs.records.ts',
      'apps/gateway/src/routes/io-jobs.routes.ts',
    ]) {
      expect(tree.exists(file)).toBe(true);
    }
    expect(text('libs/resources/src/import.ts')).toContain('export const Import = defineResource({');
    expect(text('libs/resources/src/index.ts')).toContain(
      "export { Import, type ImportInput, type ImportView } from './import';",
    );
    const proto = text('protos/pim/iojobs/v1/iojobs.proto');
    expect(proto).toContain('service ImportsService {');
    expect(proto).toContain('service ExportsService {');
    expect(proto.match(/import "pim\/common\/v1\/common.proto";/g)).toHaveLength(1);
    expect(text('apps/io-jobs/src/app.ts')).toContain(
      'importsGrpc(new RecordService(ds, importRecord, IO_JOBS_STORE), logger)',
    );
    expect(text('apps/io-jobs/src/app.ts')).toContain(
      'exportsGrpc(new RecordService(ds, exportRecord, IO_JOBS_STORE), logger)',
    );
    expect(text('apps/io-jobs/src/data-source.ts')).toMatch(
      /entities: \[ExportEntity, ImportEntity, OutboxEvent, DeadLetter\]/,
    );
    expect(text('apps/io-jobs/src/migrations/index.ts')).toMatch(
      /export const migrations = \[CreateIoJobsSchema\d+, CreateImports\d+, CreateExports\d+\];/,
    );
    expect(text('apps/gateway/src/routes/owners.ts')).toMatch(/OWNER_ROUTES: OwnerRoutes\[\] = \[[^\]]*ioJobsRoutes\]/);
    const routes = text('apps/gateway/src/routes/io-jobs.routes.ts');
    expect(routes).toContain("addressEnv: 'IO_JOBS_GRPC_URL'");
    expect(routes).toMatch(
      /Import,\s+type ImportInput,\s+type ImportView,\s+Export,\s+type ExportInput,\s+type ExportView,?\s+\} from '@pim\/resources'/,
    );
    expect(routes).toContain("collection: 'exports'");
  });

  it('refuses a collection that is not declared, an app that was not generated, and a resource twice', async () => {
    const tree = await treeWithNewApp();
    await expect(resourceGenerator(tree, { collection: 'gadgets' })).rejects.toThrow("unknown collection 'gadgets'");
    await expect(resourceGenerator(tree, { collection: 'publications' })).rejects.toThrow('generate the app first');
    await resourceGenerator(tree, { collection: 'imports' });
    await expect(resourceGenerator(tree, { collection: 'imports' })).rejects.toThrow('exists already');
  });
});
