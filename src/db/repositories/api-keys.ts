import type { Db } from '../connection.js';

export interface ApiKeyRecord {
  id: string;
  accountId: string;
  userId: string;
  name: string;
  keyHash: string;
  keyPrefix: string;
  scopes: string[];
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

/** API keys, stored only as a hash of the key. */
export class ApiKeysRepository {
  constructor(private readonly db: Db) {}

  async create(record: ApiKeyRecord): Promise<void> {
    await this.db('api_keys').insert({
      id: record.id,
      account_id: record.accountId,
      user_id: record.userId,
      name: record.name,
      key_hash: record.keyHash,
      key_prefix: record.keyPrefix,
      scopes: record.scopes.join(' '),
      created_at: record.createdAt,
      last_used_at: record.lastUsedAt,
      revoked_at: record.revokedAt,
    });
  }

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.db('api_keys').where({ key_hash: keyHash }).first();
    return row && toApiKey(row);
  }

  async list(accountId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.db('api_keys').where({ account_id: accountId }).orderBy('id');
    return rows.map(toApiKey);
  }

  /** Records use at most once per `precisionMs` per key, even when concurrent requests all decide to touch it. */
  async touch(id: string, now: number, precisionMs: number): Promise<void> {
    await this.db('api_keys')
      .where({ id })
      .andWhere((q) => q.whereNull('last_used_at').orWhere('last_used_at', '<', now - precisionMs))
      .update({ last_used_at: now });
  }

  /** Revokes every active key of the user; how many. */
  async revokeAllOf(accountId: string, userId: string, now: number): Promise<number> {
    return this.db('api_keys')
      .where({ account_id: accountId, user_id: userId })
      .whereNull('revoked_at')
      .update({ revoked_at: now });
  }

  async revoke(accountId: string, id: string, now: number): Promise<boolean> {
    const n = await this.db('api_keys')
      .where({ account_id: accountId, id })
      .whereNull('revoked_at')
      .update({ revoked_at: now });
    return n > 0;
  }
}

function toApiKey(row: any): ApiKeyRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    userId: row.user_id,
    name: row.name,
    keyHash: row.key_hash,
    keyPrefix: row.key_prefix,
    scopes: String(row.scopes).split(' ').filter(Boolean),
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
  };
}
