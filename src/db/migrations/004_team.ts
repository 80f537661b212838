import type { Knex } from 'knex';

/**
 * Team workflow: the posting queue (weekly slots per channel, queued posts), workspace labels,
 * recycling collections, approval review fields, and every post's history (post_events).
 */
export const QUEUE_SLOT_INDEX = 'posts_queue_slot_unique';

export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('channels', (t) => {
    // Weekly slots as JSON: [{ "day": "mon", "time": "09:00" }], wall-clock in the channel's timezone.
    t.text('queue_slots');
  });

  await db.schema.alterTable('posts', (t) => {
    // True while the post's time is a queue slot: reorder, resume and clear act on these only.
    t.boolean('in_queue').notNullable().defaultTo(false);
    t.string('recycled_from_post_id', 64);
    t.string('reviewer_user_id', 40);
    t.text('rejection_reason');
    t.index(['account_id', 'channel_id', 'in_queue', 'date_time']);
    t.index(['account_id', 'approval_status']);
  });

  // One queued post per channel and slot: two requests racing for the same free slot cannot both win.
  await db.raw(
    `CREATE UNIQUE INDEX ${QUEUE_SLOT_INDEX} ON posts (channel_id, date_time) ` +
      `WHERE in_queue = true AND status = 'scheduled'`,
  );

  await db.schema.createTable('labels', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('name', 100).notNullable();
    // Lower-cased name: unique per workspace regardless of case.
    t.string('name_key', 100).notNullable();
    t.string('color', 7).notNullable();
    t.bigInteger('created_at').notNullable();
    t.unique(['workspace_id', 'name_key']);
    t.index(['account_id']);
  });

  await db.schema.createTable('post_labels', (t) => {
    t.string('post_id', 64).notNullable().references('posts.id').onDelete('CASCADE');
    t.string('label_id', 40).notNullable().references('labels.id').onDelete('CASCADE');
    t.string('account_id', 40).notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['post_id', 'label_id']);
    t.index(['label_id']);
  });

  await db.schema.createTable('collections', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('name', 200).notNullable();
    // Null: recycled once, never re-queued.
    t.integer('interval_days');
    t.bigInteger('ends_at');
    t.bigInteger('next_run_at');
    t.bigInteger('created_at').notNullable();
    t.index(['account_id']);
    t.index(['next_run_at']);
  });

  await db.schema.createTable('collection_posts', (t) => {
    t.string('collection_id', 40).notNullable().references('collections.id').onDelete('CASCADE');
    t.string('post_id', 64).notNullable().references('posts.id').onDelete('CASCADE');
    t.bigInteger('added_at').notNullable();
    t.primary(['collection_id', 'post_id']);
  });

  await db.schema.createTable('post_events', (t) => {
    t.increments('seq').primary();
    t.string('account_id', 40).notNullable();
    // No foreign key: a deleted post's history stays readable to the account.
    t.string('post_id', 64).notNullable();
    t.bigInteger('at').notNullable();
    // Null when Herald itself acted (collection re-queue, queue catch-up on resume).
    t.string('actor_user_id', 40);
    t.string('kind', 40).notNullable();
    t.text('details');
    t.index(['account_id', 'post_id', 'seq']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['post_events', 'collection_posts', 'collections', 'post_labels', 'labels']) {
    await db.schema.dropTableIfExists(table);
  }
  await db.raw(`DROP INDEX IF EXISTS ${QUEUE_SLOT_INDEX}`);
  await db.schema.alterTable('posts', (t) => {
    t.dropIndex(['account_id', 'channel_id', 'in_queue', 'date_time']);
    t.dropIndex(['account_id', 'approval_status']);
    t.dropColumns('in_queue', 'recycled_from_post_id', 'reviewer_user_id', 'rejection_reason');
  });
  await db.schema.alterTable('channels', (t) => t.dropColumn('queue_slots'));
}
