import { ConflictError, ValidationError } from '@pim/errors';
import { usersGroupsRepository } from '../repositories/users-groups.repository';
import { useWorkflowContext, type WorkflowTestContext } from '../testing/workflow.context';

const LIST = { page: 1, limit: 50, skip: 0, sort: [], filters: [], expand: [] };
const ANA = '6740a1b2c3d4e5f601234567';

// Users groups on the record engine against the real Postgres: named uniquely, members with roles.
describe('users groups (real Postgres)', () => {
  let ctx: WorkflowTestContext;
  useWorkflowContext((c) => (ctx = c));

  it('creates, patches, searches and deletes a group; its name is unique among live groups', async () => {
    const g = await ctx.usersGroups.create({
      source_id: 'sso',
      name: 'Approvers',
      description: 'Approve product changes',
      users: [{ id: ANA, name: 'Ana', roles: ['approver'] }, { name: 'Bruno' }],
    });
    expect(g).toMatchObject({ source_id: 'sso', name: 'Approvers', has_full_product_access: false, version: 1 });
    // Roles are always shown; a member given without them has none.
    expect(g.users).toEqual([
      { id: ANA, name: 'Ana', roles: ['approver'] },
      { name: 'Bruno', roles: [] },
    ]);
    const taken = await ctx.usersGroups.create({ source_id: 'sso', name: 'Approvers', users: [] }).catch((e) => e);
    expect(taken).toBeInstanceOf(ConflictError);
    expect((taken as ConflictError).message).toContain("already named 'Approvers'");
    const patched = await ctx.usersGroups.patch(g._id, { has_full_product_access: true }, 1);
    expect(patched).toMatchObject({ has_full_product_access: true, version: 2 });
    expect((await ctx.usersGroups.list({ ...LIST, search: 'product changes' })).total).toBe(1);
    expect((await ctx.usersGroups.batchGet([], ['Approvers'])).map((x) => x._id)).toEqual([g._id]);
    await ctx.usersGroups.remove(g._id);
    // Deleted: its name is free again.
    await ctx.usersGroups.create({ source_id: 'sso', name: 'Approvers', users: [] });
    expect((await ctx.events()).map((e) => e.type)).toEqual([
      'users_groups.created',
      'users_groups.updated',
      'users_groups.deleted',
      'users_groups.created',
    ]);
  });

  it('refuses a group without users or source_id, and a user listed twice', async () => {
    await expect(ctx.usersGroups.create({ source_id: 'sso', name: 'A' } as never)).rejects.toBeInstanceOf(
      ValidationError,
    );
    await expect(ctx.usersGroups.create({ name: 'A', users: [] } as never)).rejects.toBeInstanceOf(ValidationError);
    const twice = await ctx.usersGroups
      .create({ source_id: 'sso', name: 'A', users: [{ id: ANA }, { id: ANA, name: 'Ana' }] })
      .catch((e) => e);
    expect(twice).toBeInstanceOf(ValidationError);
    expect((twice as ValidationError).details!.map((d) => d.field)).toEqual(['users']);
    expect((await ctx.usersGroups.list(LIST)).total).toBe(0);
  });

  it("answers a user's access from the live groups that list them, read now", async () => {
    const BRUNO = '6740a1b2c3d4e5f601234568';
    const access = (id: string) => usersGroupsRepository.accessOf(ctx.ds.manager, id);
    expect(await access(ANA)).toEqual({ group_ids: [], full_product_access: false });
    const buyers = await ctx.usersGroups.create({
      source_id: 'sso',
      name: 'Buyers',
      users: [{ id: ANA }, { id: BRUNO }],
    });
    const admins = await ctx.usersGroups.create({
      source_id: 'sso',
      name: 'Admins',
      has_full_product_access: true,
      users: [{ id: BRUNO, name: 'Bruno', roles: ['admin'] }],
    });
    expect(await access(ANA)).toEqual({ group_ids: [buyers._id], full_product_access: false });
    expect(await access(BRUNO)).toEqual({ group_ids: [buyers._id, admins._id].sort(), full_product_access: true });
    // A member removed, a group deleted: the next read says so.
    await ctx.usersGroups.patch(buyers._id, { users: [{ id: BRUNO }] });
    await ctx.usersGroups.remove(admins._id);
    expect(await access(ANA)).toEqual({ group_ids: [], full_product_access: false });
    expect(await access(BRUNO)).toEqual({ group_ids: [buyers._id], full_product_access: false });
  });
});
