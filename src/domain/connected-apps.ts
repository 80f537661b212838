/**
 * The OAuth clients a person authorized (REST /connected-apps, the app's Settings, Connected apps).
 *
 * Rules kept here:
 * - a person sees and revokes only their own authorizations, whatever their scopes: another member's consent is theirs;
 * - several authorizations of one client (consented twice, or from two devices) are one entry, with the union of
 *   their scopes; revoking the client revokes them all, with every access and refresh token, at once;
 * - revoked tokens stop working on every instance within a second (forgetResolvedTokens, and the principal cache's
 *   lifetime elsewhere); a client nobody authorized is "not found", never a hint of what exists.
 */
import type { components } from '../../generated/rest/openapi-types.js';
import { forgetResolvedTokens } from './authentication.js';
import type { DomainDeps } from './deps.js';
import { NotFoundError } from './errors.js';
import type { Principal } from './principal.js';
import { toWireTime } from './time.js';

export type ConnectedAppView = components['schemas']['ConnectedApp'];

export async function listConnectedApps(deps: DomainDeps, principal: Principal): Promise<ConnectedAppView[]> {
  const byClient = new Map<string, ConnectedAppView & { first: number; last: number | null }>();
  for (const { family, client, lastTokenAt } of await deps.repos.oauth.authorizationsOf(principal.accountId, principal.userId)) {
    const seen = byClient.get(client.id);
    const clientUri = typeof client.metadata.client_uri === 'string' ? client.metadata.client_uri : null;
    const entry = seen ?? { clientId: client.id, clientName: client.clientName, clientUri, scopes: [], authorizedAt: '', lastTokenAt: null, first: family.createdAt, last: null };
    entry.scopes = [...new Set([...entry.scopes, ...family.scope])];
    entry.first = Math.min(entry.first, family.createdAt);
    if (lastTokenAt !== null) entry.last = Math.max(entry.last ?? 0, lastTokenAt);
    byClient.set(client.id, entry);
  }
  return [...byClient.values()].map(({ first, last, ...view }) => ({ ...view, authorizedAt: toWireTime(first), lastTokenAt: toWireTime(last) }));
}

export async function revokeConnectedApp(deps: DomainDeps, principal: Principal, clientId: string): Promise<{ clientId: string; revokedAuthorizations: number }> {
  const revoked = await deps.repos.oauth.revokeClientForUser(principal.accountId, principal.userId, clientId, deps.now());
  if (revoked === 0) throw new NotFoundError(`You have not authorized a client ${clientId}; GET /connected-apps lists the ones you have.`);
  forgetResolvedTokens(deps);
  return { clientId, revokedAuthorizations: revoked };
}
