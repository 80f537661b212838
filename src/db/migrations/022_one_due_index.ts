import type { Knex } from 'knex';

/**
 * 001's (status, date_time) index is the prefix of 020's (status, date_time, id), which serves every query it did:
 * keeping both cost each new or changed post one more index write for nothing (a REST POST writes 11 b-trees).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('posts', (t) => {
    t.dropIndex(['status', 'date_time']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('posts', (t) => {
    t.index(['status', 'date_time']);
  });
}
