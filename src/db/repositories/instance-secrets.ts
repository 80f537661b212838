import type { Db } from '../connection.js';

/** Secrets every instance must share (cursor and link signing), stored as the domain seals them. */
export class InstanceSecretsRepository {
  constructor(private readonly db: Db) {}

  /** Stores `value` unless another instance stored one first; returns what is stored. */
  async insertIfAbsent(name: string, value: string): Promise<string> {
    await this.db('instance_secrets').insert({ name, value }).onConflict('name').ignore();
    const row = await this.db('instance_secrets').where({ name }).first();
    return row.value;
  }

  async replace(name: string, value: string): Promise<void> {
    await this.db('instance_secrets').where({ name }).update({ value });
  }

  async all(): Promise<{ name: string; value: string }[]> {
    return this.db('instance_secrets').select('name', 'value').orderBy('name');
  }
}
