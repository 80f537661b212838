import crypto from 'node:crypto';
import type { Db } from '../connection.js';

/** Secrets every instance must share (cursor signing), created once in the database. */
export class InstanceSecretsRepository {
  constructor(private readonly db: Db) {}

  async getOrCreate(name: string): Promise<string> {
    await this.db('instance_secrets')
      .insert({ name, value: crypto.randomBytes(32).toString('base64url') })
      .onConflict('name')
      .ignore();
    const row = await this.db('instance_secrets').where({ name }).first();
    return row.value;
  }
}
