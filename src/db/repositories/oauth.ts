import type { Db } from '../connection.js';
import { json, jsonText } from './rows.js';

export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

export interface OAuthClientRecord {
  id: string;
  /** Null for public clients (token_endpoint_auth_method "none"). */
  secretHash: string | null;
  tokenEndpointAuthMethod: TokenEndpointAuthMethod;
  clientName: string | null;
  redirectUris: string[];
  grantTypes: string[];
  scope: string | null;
  /** Other registered metadata (client_uri, logo_uri, ...), returned as registered. */
  metadata: Record<string, unknown>;
  createdAt: number;
  /**
   * A metadata document client (its id is the document's URL): when the cached document goes stale. Null for registered
   * clients.
   */
  documentExpiresAt: number | null;
}

export interface AuthorizationCodeRecord {
  codeHash: string;
  familyId: string;
  clientId: string;
  accountId: string;
  userId: string;
  redirectUri: string;
  scope: string[];
  resource: string;
  codeChallenge: string;
  codeChallengeMethod: string;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
}

export interface TokenFamilyRecord {
  id: string;
  clientId: string;
  accountId: string;
  userId: string;
  scope: string[];
  resource: string;
  createdAt: number;
  revokedAt: number | null;
}

export type TokenKind = 'access' | 'refresh';

export interface OAuthTokenRecord {
  id: string;
  familyId: string;
  kind: TokenKind;
  tokenHash: string;
  scope: string[];
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  revokedAt: number | null;
}

/** A token together with the family (authorization) it belongs to. */
export interface OAuthTokenWithFamily {
  token: OAuthTokenRecord;
  family: TokenFamilyRecord;
}

/**
 * OAuth clients, authorization codes and token families. Clients are registered anonymously
 * (RFC 7591) and belong to no account; codes and families belong to the account that consented.
 */
export class OAuthRepository {
  constructor(private readonly db: Db) {}

  async createClient(record: OAuthClientRecord): Promise<void> {
    await this.db('oauth_clients').insert(clientRow(record));
  }

  /**
   * Stores a metadata document client as last fetched; a concurrent fetch by another instance simply wins or loses the
   * last write.
   */
  async saveDocumentClient(record: OAuthClientRecord): Promise<void> {
    const row = clientRow(record);
    const refreshed = Object.keys(row).filter((column) => column !== 'created_at');
    await this.db('oauth_clients').insert(row).onConflict('id').merge(refreshed);
  }

  async getClient(id: string): Promise<OAuthClientRecord | undefined> {
    const row = await this.db('oauth_clients').where({ id }).first();
    return row && toClient(row);
  }

  async createAuthorizationCode(record: AuthorizationCodeRecord): Promise<void> {
    await this.db('oauth_authorization_codes').insert({
      code_hash: record.codeHash,
      family_id: record.familyId,
      client_id: record.clientId,
      account_id: record.accountId,
      user_id: record.userId,
      redirect_uri: record.redirectUri,
      scope: record.scope.join(' '),
      resource: record.resource,
      code_challenge: record.codeChallenge,
      code_challenge_method: record.codeChallengeMethod,
      created_at: record.createdAt,
      expires_at: record.expiresAt,
      used_at: record.usedAt,
    });
  }

  async findAuthorizationCode(codeHash: string): Promise<AuthorizationCodeRecord | undefined> {
    const row = await this.db('oauth_authorization_codes').where({ code_hash: codeHash }).first();
    return row && toCode(row);
  }

  /** Marks the code used; false when another request used it first (the single-use guarantee). */
  async useAuthorizationCode(codeHash: string, now: number): Promise<boolean> {
    const n = await this.db('oauth_authorization_codes')
      .where({ code_hash: codeHash })
      .whereNull('used_at')
      .update({ used_at: now });
    return n > 0;
  }

  /** Creates the family on first use (a code's exchange); later calls leave it as it is. */
  async ensureFamily(record: TokenFamilyRecord): Promise<void> {
    await this.db('oauth_token_families')
      .insert({
        id: record.id,
        client_id: record.clientId,
        account_id: record.accountId,
        user_id: record.userId,
        scope: record.scope.join(' '),
        resource: record.resource,
        created_at: record.createdAt,
        revoked_at: record.revokedAt,
      })
      .onConflict('id')
      .ignore();
  }

  async getFamily(id: string): Promise<TokenFamilyRecord | undefined> {
    const row = await this.db('oauth_token_families').where({ id }).first();
    return row && toFamily(row);
  }

  /** Revokes the family and every token in it. */
  async revokeFamily(id: string, now: number): Promise<void> {
    await this.db.transaction(async (trx) => {
      await trx('oauth_token_families').where({ id }).whereNull('revoked_at').update({ revoked_at: now });
      await trx('oauth_tokens').where({ family_id: id }).whereNull('revoked_at').update({ revoked_at: now });
    });
  }

  async createToken(record: OAuthTokenRecord): Promise<void> {
    await this.db('oauth_tokens').insert({
      id: record.id,
      family_id: record.familyId,
      kind: record.kind,
      token_hash: record.tokenHash,
      scope: record.scope.join(' '),
      created_at: record.createdAt,
      expires_at: record.expiresAt,
      used_at: record.usedAt,
      revoked_at: record.revokedAt,
    });
  }

  async findToken(tokenHash: string): Promise<OAuthTokenWithFamily | undefined> {
    const row = await this.db('oauth_tokens as t')
      .join('oauth_token_families as f', 'f.id', 't.family_id')
      .where('t.token_hash', tokenHash)
      .select(
        't.id',
        't.family_id',
        't.kind',
        't.token_hash',
        't.scope',
        't.created_at',
        't.expires_at',
        't.used_at',
        't.revoked_at',
        'f.client_id as f_client_id',
        'f.account_id as f_account_id',
        'f.user_id as f_user_id',
        'f.scope as f_scope',
        'f.resource as f_resource',
        'f.created_at as f_created_at',
        'f.revoked_at as f_revoked_at',
      )
      .first();
    if (!row) return undefined;
    return {
      token: toToken(row),
      family: toFamily({
        id: row.family_id,
        client_id: row.f_client_id,
        account_id: row.f_account_id,
        user_id: row.f_user_id,
        scope: row.f_scope,
        resource: row.f_resource,
        created_at: row.f_created_at,
        revoked_at: row.f_revoked_at,
      }),
    };
  }

  /** Marks a refresh token exchanged; false when it was already exchanged or revoked (replay). */
  async useRefreshToken(id: string, now: number): Promise<boolean> {
    const n = await this.db('oauth_tokens')
      .where({ id, kind: 'refresh' })
      .whereNull('used_at')
      .whereNull('revoked_at')
      .update({ used_at: now });
    return n > 0;
  }

  async revokeToken(id: string, now: number): Promise<void> {
    await this.db('oauth_tokens').where({ id }).whereNull('revoked_at').update({ revoked_at: now });
  }

  /** The user's standing authorizations (families not revoked), each with its client and when it last got a token. */
  async authorizationsOf(
    accountId: string,
    userId: string,
  ): Promise<{ family: TokenFamilyRecord; client: OAuthClientRecord; lastTokenAt: number | null }[]> {
    const families = await this.db('oauth_token_families')
      .where({ account_id: accountId, user_id: userId })
      .whereNull('revoked_at')
      .orderBy('created_at');
    if (families.length === 0) return [];
    const ids = families.map((f: { id: string }) => f.id);
    const clients = await this.db('oauth_clients').whereIn('id', [
      ...new Set(families.map((f: { client_id: string }) => f.client_id)),
    ]);
    const latest: { family_id: string; at: number | string | null }[] = await this.db('oauth_tokens')
      .whereIn('family_id', ids)
      .groupBy('family_id')
      .select('family_id')
      .max({ at: 'created_at' });
    const lastByFamily = new Map(latest.map((row) => [row.family_id, row.at === null ? null : Number(row.at)]));
    const clientById = new Map(clients.map((row: { id: string }) => [row.id, toClient(row)]));
    return families.map((row: any) => ({
      family: toFamily(row),
      client: clientById.get(row.client_id)!,
      lastTokenAt: lastByFamily.get(row.id) ?? null,
    }));
  }

  /** Revokes every authorization the user gave this client, with their tokens; how many there were. */
  async revokeClientForUser(accountId: string, userId: string, clientId: string, now: number): Promise<number> {
    return this.db.transaction(async (trx) => {
      const families = await trx('oauth_token_families')
        .where({ account_id: accountId, user_id: userId, client_id: clientId })
        .whereNull('revoked_at')
        .pluck('id');
      if (families.length === 0) return 0;
      await trx('oauth_token_families').whereIn('id', families).update({ revoked_at: now });
      await trx('oauth_tokens').whereIn('family_id', families).whereNull('revoked_at').update({ revoked_at: now });
      return families.length;
    });
  }

  /** Revokes every authorization the user gave any client, with their tokens and unspent codes; how many there were. */
  async revokeAllForUser(accountId: string, userId: string, now: number): Promise<number> {
    const owner = { account_id: accountId, user_id: userId };
    const families = await this.db('oauth_token_families').where(owner).whereNull('revoked_at').pluck('id');
    await this.db('oauth_authorization_codes').where(owner).whereNull('used_at').update({ used_at: now });
    if (families.length === 0) return 0;
    await this.db('oauth_token_families').whereIn('id', families).update({ revoked_at: now });
    await this.db('oauth_tokens').whereIn('family_id', families).whereNull('revoked_at').update({ revoked_at: now });
    return families.length;
  }

  /**
   * Housekeeping: clients registered before `registeredBefore` that no user ever authorized (no code pending, no token
   * family).
   */
  async deleteNeverAuthorizedClients(registeredBefore: number): Promise<number> {
    return this.db('oauth_clients')
      .where('created_at', '<', registeredBefore)
      .whereNotExists(
        this.db('oauth_token_families')
          .select(this.db.raw('1'))
          .whereRaw('oauth_token_families.client_id = oauth_clients.id'),
      )
      .whereNotExists(
        this.db('oauth_authorization_codes')
          .select(this.db.raw('1'))
          .whereRaw('oauth_authorization_codes.client_id = oauth_clients.id'),
      )
      .delete();
  }

  /** Housekeeping: codes and tokens past their expiry are useless (and replay of them is refused as unknown). */
  async purgeExpired(now: number): Promise<number> {
    const codes = await this.db('oauth_authorization_codes').where('expires_at', '<', now).delete();
    const tokens = await this.db('oauth_tokens').where('expires_at', '<', now).delete();
    return codes + tokens;
  }
}

function words(value: unknown): string[] {
  return String(value ?? '')
    .split(' ')
    .filter(Boolean);
}

function clientRow(record: OAuthClientRecord) {
  return {
    id: record.id,
    secret_hash: record.secretHash,
    token_endpoint_auth_method: record.tokenEndpointAuthMethod,
    client_name: record.clientName,
    redirect_uris: jsonText(record.redirectUris),
    grant_types: record.grantTypes.join(' '),
    scope: record.scope,
    metadata: jsonText(record.metadata),
    created_at: record.createdAt,
    document_expires_at: record.documentExpiresAt,
  };
}

function toClient(row: any): OAuthClientRecord {
  return {
    id: row.id,
    secretHash: row.secret_hash,
    tokenEndpointAuthMethod: row.token_endpoint_auth_method,
    clientName: row.client_name,
    redirectUris: json<string[]>(row.redirect_uris, []),
    grantTypes: words(row.grant_types),
    scope: row.scope,
    metadata: json<Record<string, unknown>>(row.metadata, {}),
    createdAt: row.created_at,
    documentExpiresAt: row.document_expires_at ?? null,
  };
}

function toCode(row: any): AuthorizationCodeRecord {
  return {
    codeHash: row.code_hash,
    familyId: row.family_id,
    clientId: row.client_id,
    accountId: row.account_id,
    userId: row.user_id,
    redirectUri: row.redirect_uri,
    scope: words(row.scope),
    resource: row.resource,
    codeChallenge: row.code_challenge,
    codeChallengeMethod: row.code_challenge_method,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
  };
}

function toFamily(row: any): TokenFamilyRecord {
  return {
    id: row.id,
    clientId: row.client_id,
    accountId: row.account_id,
    userId: row.user_id,
    scope: words(row.scope),
    resource: row.resource,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

function toToken(row: any): OAuthTokenRecord {
  return {
    id: row.id,
    familyId: row.family_id,
    kind: row.kind,
    tokenHash: row.token_hash,
    scope: words(row.scope),
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    usedAt: row.used_at,
    revokedAt: row.revoked_at,
  };
}
