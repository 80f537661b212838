import type { Knex } from 'knex';

/**
 * Due posts in the order the worker claims them (date_time, then id), so a claim reads its batch off the index
 * rather than sorting every due post (publishing.ts claimDue). Numbered 020: 010 to 019 belong to the work
 * merged beside this one.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('posts', (t) => {
    t.index(['status', 'date_time', 'id'], 'posts_status_date_time_id_index');
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('posts', (t) => {
    t.dropIndex(['status', 'date_time', 'id'], 'posts_status_date_time_id_index');
  });
}
