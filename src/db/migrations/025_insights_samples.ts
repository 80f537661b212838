import type { Knex } from 'knex';

/**
 * Insights keep history, not a snapshot: each live sync stores the counters of each post it sees (when they
 * changed) and each channel's audience, as samples; housekeeping compacts old ones (domain/insights/compaction.ts);
 * and which weekly digests were written.
 * A post's sample carries its channel, account and publish time so period queries and compaction need no join.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('post_samples', (t) => {
    t.string('post_id', 64).notNullable().references('posts.id').onDelete('CASCADE');
    t.bigInteger('sampled_at').notNullable();
    t.string('account_id', 40).notNullable();
    t.string('channel_id', 40).notNullable();
    t.bigInteger('published_at').notNullable();
    // The network's counters by Herald's names, as JSON: {"likes": 3, "impressions": 40}.
    t.text('counters').notNullable();
    t.primary(['post_id', 'sampled_at']);
    t.index(['channel_id', 'sampled_at']);
  });
  await db.schema.createTable('audience_samples', (t) => {
    t.string('channel_id', 40).notNullable().references('channels.id').onDelete('CASCADE');
    t.bigInteger('sampled_at').notNullable();
    t.string('account_id', 40).notNullable();
    t.bigInteger('followers').notNullable();
    t.primary(['channel_id', 'sampled_at']);
  });
  // The weekly digest written for a workspace and week (its Monday): one, however many instances race to write it.
  await db.schema.createTable('insight_digests', (t) => {
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('week', 10).notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['workspace_id', 'week']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('insight_digests');
  await db.schema.dropTable('audience_samples');
  await db.schema.dropTable('post_samples');
}
