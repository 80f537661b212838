import type { Db } from '../connection.js';

export interface IdempotencyRecord {
  accountId: string;
  key: string;
  requestHash: string;
  responseStatus: number | null;
  responseBody: string | null;
  createdAt: number;
  expiresAt: number;
}

/** Idempotency keys per account: claimed before the work, completed with the response after it. */
export class IdempotencyRepository {
  constructor(private readonly db: Db) {}

  /** Claims the key; false when it is already held (by a finished or a running request). */
  async claim(record: IdempotencyRecord): Promise<boolean> {
    await this.db('idempotency_keys')
      .where({ account_id: record.accountId, key: record.key })
      .andWhere('expires_at', '<=', record.createdAt)
      .delete();
    const inserted = await this.db('idempotency_keys')
      .insert({
        account_id: record.accountId,
        key: record.key,
        request_hash: record.requestHash,
        created_at: record.createdAt,
        expires_at: record.expiresAt,
      })
      .onConflict(['account_id', 'key'])
      .ignore()
      .returning('key');
    return inserted.length > 0;
  }

  async get(accountId: string, key: string): Promise<IdempotencyRecord | undefined> {
    const row = await this.db('idempotency_keys').where({ account_id: accountId, key }).first();
    return (
      row && {
        accountId: row.account_id,
        key: row.key,
        requestHash: row.request_hash,
        responseStatus: row.response_status,
        responseBody: row.response_body,
        createdAt: row.created_at,
        expiresAt: row.expires_at,
      }
    );
  }

  async complete(accountId: string, key: string, status: number, body: string): Promise<void> {
    await this.db('idempotency_keys')
      .where({ account_id: accountId, key })
      .update({ response_status: status, response_body: body });
  }

  async release(accountId: string, key: string): Promise<void> {
    await this.db('idempotency_keys').where({ account_id: accountId, key }).whereNull('response_status').delete();
  }

  async deleteExpired(now: number): Promise<number> {
    return this.db('idempotency_keys').where('expires_at', '<=', now).delete();
  }
}
