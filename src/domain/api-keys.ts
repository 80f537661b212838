/**
 * API keys as members manage them (REST /api-keys, the app's Settings, Developer, API keys).
 *
 * Rules kept here:
 * - a key acts as the member who created it, with read_profile and manage_post always, and manage_team only when
 *   asked for by a caller that has manage_team itself; at each request the key may do only what its creator's
 *   roles hold then (role-powers.ts): no key grants more than its creator holds;
 * - keys are made in the app or with another API key, never with an OAuth access token: a key would outlive the
 *   consent that made it, so revoking a connected app would leave a credential it minted working;
 * - with manage_team a caller lists and revokes every key of the account; without it, only their own, and another
 *   member's key is "not found" rather than forbidden, so its existence is not revealed;
 * - the key is shown once, at creation; Herald keeps its SHA-256 hash and its first characters;
 * - a revoked key stops working on every instance within a second (forgetResolvedTokens here, and the principal
 *   cache's lifetime elsewhere).
 */
import type { components } from '../../generated/rest/openapi-types.js';
import type { ApiKeyRecord } from '../db/repositories/api-keys.js';
import { forgetResolvedTokens } from './authentication.js';
import type { DomainDeps } from './deps.js';
import { HeraldError, NotFoundError } from './errors.js';
import { requireScope, type Principal } from './principal.js';
import { createApiKey, parseScopes } from './provisioning.js';
import { toWireTime } from './time.js';

export type ApiKeyView = components['schemas']['ApiKey'];
export type ApiKeyWithSecret = components['schemas']['ApiKeyWithSecret'];

export async function listApiKeys(deps: DomainDeps, principal: Principal): Promise<ApiKeyView[]> {
  const keys = await deps.repos.apiKeys.list(principal.accountId);
  return keys.filter((key) => managesKeys(principal) || key.userId === principal.userId).map(toApiKeyView);
}

export async function createMemberApiKey(
  deps: DomainDeps,
  principal: Principal,
  input: { name: string; scopes?: string[] },
): Promise<ApiKeyWithSecret> {
  if (principal.tokenKind === 'oauth') {
    throw new HeraldError(
      'forbidden',
      403,
      'An OAuth access token cannot create API keys: a key would outlive the ' +
        "app's authorization. Create keys in the app (Settings, API keys) or with an API key.",
    );
  }
  const scopes = parseScopes(input.scopes ?? []);
  if (scopes.includes('manage_team')) requireScope(principal, 'manage_team');
  const created = await createApiKey(deps, {
    accountId: principal.accountId,
    userId: principal.userId,
    name: input.name.trim() || 'API key',
    scopes,
  });
  const stored = (await deps.repos.apiKeys.list(principal.accountId)).find((key) => key.id === created.id)!;
  return { ...toApiKeyView(stored), key: created.key };
}

export async function revokeMemberApiKey(deps: DomainDeps, principal: Principal, keyId: string): Promise<ApiKeyView> {
  const key = (await deps.repos.apiKeys.list(principal.accountId)).find((k) => k.id === keyId);
  if (!key || key.revokedAt !== null || (!managesKeys(principal) && key.userId !== principal.userId)) {
    throw new NotFoundError(`No active API key ${keyId} of yours; GET /api-keys lists them.`);
  }
  await deps.repos.apiKeys.revoke(principal.accountId, keyId, deps.now());
  forgetResolvedTokens(deps);
  return toApiKeyView({ ...key, revokedAt: deps.now() });
}

function managesKeys(principal: Principal): boolean {
  return principal.scopes.includes('manage_team');
}

function toApiKeyView(key: ApiKeyRecord): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.keyPrefix,
    userId: key.userId,
    scopes: key.scopes as ApiKeyView['scopes'],
    createdAt: toWireTime(key.createdAt),
    lastUsedAt: toWireTime(key.lastUsedAt),
    revokedAt: toWireTime(key.revokedAt),
  };
}
