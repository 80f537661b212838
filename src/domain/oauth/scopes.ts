/**
 * Scopes an OAuth client can be granted (SPEC, Authentication 4-5):
 * - `read_profile` and `manage_post` are on every token, whatever the client asked for;
 * - `manage_team` only when the user ticks it on the consent page, which offers it only to a person whose role
 *   holds it (role-powers.ts): a box ticked by anyone else grants nothing;
 * - the token endpoint grants what the person's roles still hold at the exchange and at every refresh: a demoted
 *   person's client silently gets less (the response's `scope` says what), and a refresh that names a scope they
 *   no longer hold is invalid_scope; a person who is no longer a member gets invalid_grant;
 * - scope values Herald does not know are ignored (RFC 6749 section 3.3 lets the server grant less).
 */
import type { DomainDeps } from '../deps.js';
import { REQUIRED_SCOPES, SCOPES, type Scope } from '../principal.js';
import { heldPowers } from '../role-powers.js';

export const OAUTH_SCOPES: readonly Scope[] = SCOPES;

export function parseScopeParam(value: string | undefined): string[] {
  return (value ?? '').split(' ').filter(Boolean);
}

/** The scopes of a consent: the required ones, and manage_team when ticked by a person whose roles hold it. */
export function grantedScopes(manageTeam: boolean, held: readonly Scope[]): Scope[] {
  return manageTeam && held.includes('manage_team') ? [...REQUIRED_SCOPES, 'manage_team'] : [...REQUIRED_SCOPES];
}

/** The granted scopes the person's roles still hold; undefined when they are no longer a member. */
export async function stillHeldScopes(
  deps: DomainDeps,
  holder: { accountId: string; userId: string },
  scopes: readonly string[],
): Promise<string[] | undefined> {
  const held = await heldPowers(deps, holder.accountId, holder.userId);
  if (held.roles.length === 0) return undefined;
  return scopes.filter((scope) => (held.scopes as string[]).includes(scope));
}
