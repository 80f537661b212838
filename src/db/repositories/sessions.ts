import type { Db } from '../connection.js';

export interface SessionRecord {
  accountId: string;
  userId: string;
  expiresAt: number;
}

/** Browser sign-in sessions by the hash of their token. */
export class SessionsRepository {
  constructor(private readonly db: Db) {}

  async create(tokenHash: string, session: SessionRecord, now: number): Promise<void> {
    await this.db('browser_sessions').insert({
      token_hash: tokenHash,
      account_id: session.accountId,
      user_id: session.userId,
      created_at: now,
      expires_at: session.expiresAt,
    });
  }

  async find(tokenHash: string, now: number): Promise<SessionRecord | undefined> {
    const row = await this.db('browser_sessions')
      .where({ token_hash: tokenHash })
      .andWhere('expires_at', '>', now)
      .first();
    return row && { accountId: row.account_id, userId: row.user_id, expiresAt: Number(row.expires_at) };
  }

  async delete(tokenHash: string): Promise<void> {
    await this.db('browser_sessions').where({ token_hash: tokenHash }).delete();
  }

  /** Signs the user out everywhere; how many sessions there were. */
  async deleteAllOf(accountId: string, userId: string): Promise<number> {
    return this.db('browser_sessions').where({ account_id: accountId, user_id: userId }).delete();
  }

  async deleteExpired(now: number): Promise<number> {
    return this.db('browser_sessions').where('expires_at', '<=', now).delete();
  }
}
