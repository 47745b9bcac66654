import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTree } from '@nx/devkit/testing';
import type { Tree } from '@nx/devkit';
import resourceGenerator from './resource.generator';

const root = join(__dirname, '..', '..', '..', '..');
/** The files the generator edits, as they are in the repository (the workflow app is a generated skeleton). */
const EDITED = [
  'libs/resources/src/index.ts',
  'protos/pim/workflow/v1/workflow.proto',
  'apps/workflow/src/app.ts',
  'apps/workflow/src/config.ts',
  'apps/workflow/src/data-source.ts',
  'apps/workflow/src/migrations/index.ts',
  'apps/gateway/src/routes/owners.ts',
];

function repoTree(): Tree {
  const tree = createTree();
  for (const path of EDITED) tree.write(path, readFileSync(join(root, path), 'utf8'));
  return tree;
}

// In a scratch clone, `nx g @pim/generators:resource users_groups` followed by `npm test` passed
// every step; this keeps the generator's edits in shape without running the whole suite.
describe('resource generator', () => {
  it('writes a declared resource into its app and the gateway, wired everywhere it must be listed', async () => {
    const tree = repoTree();
    await resourceGenerator(tree, { collection: 'users_groups' });
    const text = (p: string) => tree.read(p, 'utf-8') ?? '';
    for (const file of [
      'libs/resources/src/users-group.ts',
      'apps/workflow/src/entities/users-group.entity.ts',
      'apps/workflow/src/users-group/users-group.resource.ts',
      'apps/workflow/src/users-group/users-group.grpc.ts',
      'apps/workflow/src/users-group/users-group.contract.spec.ts',
      'apps/workflow/src/users-group/users-group.service.int.spec.ts',
      'apps/workflow/src/workflow.records.ts',
      'apps/gateway/src/routes/workflow.routes.ts',
    ]) {
      expect(tree.exists(file)).toBe(true);
    }
    expect(text('libs/resources/src/users-group.ts')).toContain('export const UsersGroup = defineResource({');
    expect(text('libs/resources/src/index.ts')).toContain(
      "export { UsersGroup, type UsersGroupInput, type UsersGroupView } from './users-group';",
    );
    expect(text('protos/pim/workflow/v1/workflow.proto')).toContain('service UsersGroupsService {');
    expect(text('protos/pim/workflow/v1/workflow.proto')).toContain('import "pim/common/v1/common.proto";');
    expect(text('apps/workflow/src/app.ts')).toContain(
      'usersGroupsGrpc(new RecordService(ds, usersGroupRecord, WORKFLOW_STORE), logger)',
    );
    expect(text('apps/workflow/src/data-source.ts')).toMatch(/entities: \[UsersGroupEntity, OutboxEvent\]/);
    expect(text('apps/workflow/src/migrations/index.ts')).toMatch(
      /export const migrations = \[CreateWorkflow\d+, CreateUsersGroups\d+\];/,
    );
    expect(text('apps/gateway/src/routes/owners.ts')).toContain(
      'export const OWNER_ROUTES: OwnerRoutes[] = [workflowRoutes];',
    );
    expect(text('apps/gateway/src/routes/workflow.routes.ts')).toContain("addressEnv: 'WORKFLOW_GRPC_URL'");
  });

  it('refuses a collection that is not declared, and an app that was not generated', async () => {
    await expect(resourceGenerator(repoTree(), { collection: 'gadgets' })).rejects.toThrow(
      "unknown collection 'gadgets'",
    );
    await expect(resourceGenerator(repoTree(), { collection: 'orders' })).rejects.toThrow('generate the app first');
  });
});
