/**
 * What each role may do, and so what any credential acting for a person may do now.
 *
 * Rules kept here:
 * - owner and admin hold read_profile, manage_post and manage_team; editor and reviewer hold read_profile and
 *   manage_post, and a reviewer also decides on held posts, signed in to the web app (no scope carries that power,
 *   so a reviewer's keys and tokens do not review);
 * - roles are per workspace; what a person may do across the account is the union over their memberships;
 * - a credential's scopes are an upper bound, never a grant: at each request its power is its scopes that the
 *   holder's roles hold now, so a demoted admin's manage_team key or token loses manage_team at once (within the
 *   principal cache's second, authentication.ts);
 * - a person with no membership left holds nothing: every credential of theirs is 401.
 */
import type { MemberRole } from '../db/repositories/accounts.js';
import type { DomainDeps } from './deps.js';
import { UnauthorizedError } from './errors.js';
import type { Principal, Scope } from './principal.js';

export const ROLE_SCOPES: Readonly<Record<MemberRole, readonly Scope[]>> = {
  owner: ['read_profile', 'manage_post', 'manage_team'],
  admin: ['read_profile', 'manage_post', 'manage_team'],
  editor: ['read_profile', 'manage_post'],
  reviewer: ['read_profile', 'manage_post'],
};

export interface HeldPowers {
  roles: MemberRole[];
  /** The union of the roles' scopes; empty for a person with no membership. */
  scopes: Scope[];
  /** Decides on held posts in the web app without manage_team. */
  reviews: boolean;
}

export async function heldPowers(deps: DomainDeps, accountId: string, userId: string): Promise<HeldPowers> {
  const roles = await deps.repos.accounts.rolesOf(accountId, userId);
  const held = new Set(roles.flatMap((role) => ROLE_SCOPES[role]));
  return { roles, scopes: [...held], reviews: roles.includes('reviewer') };
}

export const NO_LONGER_A_MEMBER =
  'This person is no longer a member of the account, so their sign-ins, keys and tokens no longer work.';

/** The credential's principal cut down to what its holder's roles hold now; 401 when they hold nothing. */
export async function boundByRoles(deps: DomainDeps, principal: Principal): Promise<Principal> {
  const held = await heldPowers(deps, principal.accountId, principal.userId);
  if (held.roles.length === 0) throw new UnauthorizedError(NO_LONGER_A_MEMBER);
  return { ...principal, scopes: principal.scopes.filter((scope) => held.scopes.includes(scope)) };
}
