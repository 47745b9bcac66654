import type { ProductAccess } from '@pim/logging';
import type { Principal } from './scopes';

/** A user's live users groups and whether one of them sees every product (the workflow app's answer). */
export interface UserAccess {
  groups: string[];
  all_products: boolean;
}

/** Reads a user's access now (never cached, so a membership change counts on the next request). */
export type UserAccessLookup = (userId: string) => Promise<UserAccess>;

/**
 * What the caller may see of the products: nothing to restrict for an `admin` key or a key bound
 * to no user (an integration's key: its scopes alone decide), else the user's groups read now.
 */
export async function productAccessOf(
  principal: Principal,
  lookup: UserAccessLookup,
): Promise<ProductAccess | undefined> {
  if (!principal.user_id || principal.scopes.includes('admin')) return undefined;
  const access = await lookup(principal.user_id);
  return { user_id: principal.user_id, all_products: access.all_products, groups: access.groups };
}
