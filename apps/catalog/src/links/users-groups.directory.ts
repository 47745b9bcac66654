import { workflow as pb } from '@pim/contracts';
import { ValidationError, withLinks, type ErrorDetail } from '@pim/errors';
import { createRpcClient } from '@pim/rpc';

/** Users groups live in the workflow app; the catalog asks it which of the ids it is given exist. */
export interface UsersGroupsDirectory {
  /** The ids among `ids` that name no live users group. A workflow app that does not answer is a 503. */
  missing(ids: string[]): Promise<string[]>;
  close(): void;
}

const BATCH = 1_000;
const DEADLINE_MS = 3_000;

/** The directory over the workflow app's UsersGroupsService at `address` (`host:port`). */
export function usersGroupsDirectory(address: string | (() => Promise<string>)): UsersGroupsDirectory {
  let client: ReturnType<typeof createRpcClient<pb.UsersGroupsServiceClient>> | undefined;
  const connect = async () => {
    if (!client) {
      const at = typeof address === 'string' ? address : await address();
      client = createRpcClient(pb.UsersGroupsServiceClient, {
        service: 'workflow',
        address: at,
        deadlineMs: DEADLINE_MS,
      });
    }
    return client;
  };
  return {
    async missing(ids) {
      const wanted = [...new Set(ids)];
      if (wanted.length === 0) return [];
      const c = await connect();
      const found = new Set<string>();
      for (let i = 0; i < wanted.length; i += BATCH) {
        const { data } = await c.batchGetUsersGroups({ ids: wanted.slice(i, i + BATCH), names: [] });
        for (const g of data) found.add(g.id);
      }
      return wanted.filter((id) => !found.has(id));
    },
    close: () => client?.close(),
  };
}

/**
 * Checks the users groups a write names, by field path (`user_groups.0`, `users_groups.1._id`): only
 * ids the record did not already hold are asked for (a group deleted since does not block other
 * changes of the record), and unknown ones are a 400 naming each.
 */
export async function requireUsersGroups(
  directory: UsersGroupsDirectory,
  named: { field: string; id: string }[],
  held: Iterable<string>,
): Promise<void> {
  const before = new Set(held);
  const fresh = named.filter((n) => !before.has(n.id));
  const missing = new Set(await directory.missing(fresh.map((n) => n.id)));
  if (missing.size === 0) return;
  const details: ErrorDetail[] = fresh
    .filter((n) => missing.has(n.id))
    .map((n) => ({ field: n.field, message: `no live users group has _id '${n.id}'` }));
  throw new ValidationError(`No live users group with _id ${[...missing].map((id) => `'${id}'`).join(', ')}`, {
    title: 'Unknown users group',
    ...withLinks((link) => `Use the _id of a live users group from ${link({ collection: 'users_groups' })}`),
    details,
  });
}
