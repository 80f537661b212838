/**
 * The OAuth clients a person authorized (REST /connected-apps, the app's Settings, Connected apps).
 *
 * Rules kept here:
 * - a person sees and revokes their own authorizations; another member's are seen and revoked only by an owner (with
 *   manage_team), who answers for what the account's members let in, and not by an admin;
 * - several authorizations of one client (consented twice, or from two devices) are one entry, with the union of
 *   their scopes; revoking the client revokes them all, with every access and refresh token, at once;
 * - revoked tokens stop working on every instance within a second (forgetResolvedTokens, and the principal cache's
 *   lifetime elsewhere); a client nobody authorized is "not found", never a hint of what exists.
 */
import type { components } from '../../generated/rest/openapi-types.js';
import { forgetResolvedTokens } from './authentication.js';
import type { DomainDeps } from './deps.js';
import { HeraldError, NotFoundError } from './errors.js';
import { requireScope, type Principal } from './principal.js';
import { toWireTime } from './time.js';

export type ConnectedAppView = components['schemas']['ConnectedApp'];

export async function listConnectedApps(deps: DomainDeps, principal: Principal): Promise<ConnectedAppView[]> {
  return connectedAppsOf(deps, principal.accountId, principal.userId);
}

/** An owner's view of a member's connected apps. */
export async function listMemberConnectedApps(
  deps: DomainDeps,
  principal: Principal,
  userId: string,
): Promise<ConnectedAppView[]> {
  await requireOwnerOver(deps, principal, userId);
  return connectedAppsOf(deps, principal.accountId, userId);
}

export async function revokeMemberConnectedApp(
  deps: DomainDeps,
  principal: Principal,
  userId: string,
  clientId: string,
): Promise<{ clientId: string; revokedAuthorizations: number }> {
  await requireOwnerOver(deps, principal, userId);
  const revoked = await deps.repos.oauth.revokeClientForUser(principal.accountId, userId, clientId, deps.now());
  if (revoked === 0) {
    throw new NotFoundError(
      `Member ${userId} has not authorized a client ${clientId}; ` +
        `GET /members/${userId}/connected-apps lists the ones they have.`,
    );
  }
  forgetResolvedTokens(deps);
  return { clientId, revokedAuthorizations: revoked };
}

async function requireOwnerOver(deps: DomainDeps, principal: Principal, userId: string): Promise<void> {
  requireScope(principal, 'manage_team');
  if (!(await deps.repos.accounts.rolesOf(principal.accountId, principal.userId)).includes('owner')) {
    throw new HeraldError('forbidden', 403, "Only an owner can see or revoke another member's connected apps.");
  }
  if (!(await deps.repos.accounts.getUser(principal.accountId, userId))) {
    throw new NotFoundError(`No member ${userId} in this account; GET /members lists them.`);
  }
}

async function connectedAppsOf(deps: DomainDeps, accountId: string, userId: string): Promise<ConnectedAppView[]> {
  const byClient = new Map<string, ConnectedAppView & { first: number; last: number | null }>();
  for (const { family, client, lastTokenAt } of await deps.repos.oauth.authorizationsOf(accountId, userId)) {
    const seen = byClient.get(client.id);
    const clientUri = typeof client.metadata.client_uri === 'string' ? client.metadata.client_uri : null;
    const entry = seen ?? {
      clientId: client.id,
      clientName: client.clientName,
      clientUri,
      scopes: [],
      authorizedAt: '',
      lastTokenAt: null,
      first: family.createdAt,
      last: null,
    };
    entry.scopes = [...new Set([...entry.scopes, ...family.scope])];
    entry.first = Math.min(entry.first, family.createdAt);
    if (lastTokenAt !== null) entry.last = Math.max(entry.last ?? 0, lastTokenAt);
    byClient.set(client.id, entry);
  }
  return [...byClient.values()].map(({ first, last, ...view }) => ({
    ...view,
    authorizedAt: toWireTime(first),
    lastTokenAt: toWireTime(last),
  }));
}

export async function revokeConnectedApp(
  deps: DomainDeps,
  principal: Principal,
  clientId: string,
): Promise<{ clientId: string; revokedAuthorizations: number }> {
  const revoked = await deps.repos.oauth.revokeClientForUser(
    principal.accountId,
    principal.userId,
    clientId,
    deps.now(),
  );
  if (revoked === 0)
    throw new NotFoundError(
      `You have not authorized a client ${clientId}; GET /connected-apps lists the ones you have.`,
    );
  forgetResolvedTokens(deps);
  return { clientId, revokedAuthorizations: revoked };
}
