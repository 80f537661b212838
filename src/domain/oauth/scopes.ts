/**
 * Scopes an OAuth client can be granted (SPEC, Authentication 4-5):
 * - `read_profile` and `manage_post` are on every token, whatever the client asked for;
 * - `manage_team` only when the user ticks it on the consent page;
 * - scope values Herald does not know are ignored (RFC 6749 section 3.3 lets the server grant less).
 */
import { REQUIRED_SCOPES, SCOPES, type Scope } from '../principal.js';

export const OAUTH_SCOPES: readonly Scope[] = SCOPES;

export function parseScopeParam(value: string | undefined): string[] {
  return (value ?? '').split(' ').filter(Boolean);
}

export function grantedScopes(manageTeam: boolean): Scope[] {
  return manageTeam ? [...REQUIRED_SCOPES, 'manage_team'] : [...REQUIRED_SCOPES];
}
