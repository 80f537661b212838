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

  async all(): Promise<{ name: string; value: string }[]> {
    return this.db('instance_secrets').select('name', 'value').orderBy('name');
  }

  async delete(names: readonly string[]): Promise<void> {
    await this.db('instance_secrets').whereIn('name', names).delete();
  }

  /**
   * Replaces every stored value by what `rewrite` makes of it, all or nothing: one transaction that
   * holds every row from its first statement (a write, so SQLite takes its lock before reading and
   * Postgres locks the rows), so no other instance reseals in between. Returns how many were rewritten.
   */
  async rewriteAll(rewrite: (name: string, value: string) => string | undefined): Promise<number> {
    return this.db.transaction(async (trx) => {
      await trx('instance_secrets').update({ value: trx.ref('value') });
      let rewritten = 0;
      for (const row of await trx('instance_secrets').select('name', 'value').orderBy('name')) {
        const value = rewrite(row.name, row.value);
        if (value === undefined) continue;
        await trx('instance_secrets').where({ name: row.name }).update({ value });
        rewritten += 1;
      }
      return rewritten;
    });
  }
}
