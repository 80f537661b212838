import type { Knex } from 'knex';

/**
 * The publishing engine: claim leases on posts, every publish/comment attempt, first-comment steps,
 * and the built-in sandbox network's own store (what it "published", and failures it was told to simulate).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('posts', (t) => {
    // The worker holding the post while it publishes, and until when; an expired lease is reclaimed.
    t.string('claimed_by', 80);
    t.bigInteger('lease_expires_at');
    // Retry back-off: not claimed again before this time.
    t.bigInteger('next_attempt_at');
    t.integer('attempt_count').notNullable().defaultTo(0);
    t.index(['status', 'lease_expires_at']);
    // Live-post sync: one row per network post on a channel, even when two workers sync at once.
    t.unique(['channel_id', 'network_post_id'], { indexName: 'posts_channel_network_post_unique' });
  });

  await db.schema.createTable('publish_attempts', (t) => {
    t.increments('seq').primary();
    t.string('account_id', 40).notNullable();
    t.string('post_id', 64).notNullable().references('posts.id').onDelete('CASCADE');
    // publish | comment
    t.string('kind', 20).notNullable();
    t.integer('number').notNullable();
    t.string('idempotency_key', 200).notNullable().unique();
    t.string('worker_id', 80).notNullable();
    t.bigInteger('started_at').notNullable();
    // Null while the network call is in flight: after a crash, the outcome is unknown until reconciled.
    t.bigInteger('finished_at');
    // published | retryable | permanent | unknown | reconciled
    t.string('outcome', 20);
    t.text('detail');
    t.index(['post_id', 'seq']);
  });

  await db.schema.createTable('first_comment_steps', (t) => {
    t.string('post_id', 64).primary().references('posts.id').onDelete('CASCADE');
    t.string('account_id', 40).notNullable();
    t.string('channel_id', 40).notNullable();
    // pending | done | failed
    t.string('status', 20).notNullable();
    t.bigInteger('due_at').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('claimed_by', 80);
    t.bigInteger('lease_expires_at');
    t.string('network_comment_id', 200);
    t.text('last_error');
    t.index(['status', 'due_at']);
  });

  await db.schema.createTable('sandbox_posts', (t) => {
    t.string('id', 64).primary();
    t.string('account_id', 40).notNullable();
    t.string('channel_id', 40).notNullable();
    t.text('text').notNullable();
    t.text('media');
    // Null for posts made outside Herald (external) and for legacy callers without a key.
    t.string('idempotency_key', 200);
    // True when "posted on the network directly", not through Herald: live-post sync finds these.
    t.boolean('external').notNullable().defaultTo(false);
    t.text('metrics');
    // Set on comments (first comments are replies on the sandbox).
    t.string('reply_to_id', 64);
    t.bigInteger('created_at').notNullable();
    t.unique(['channel_id', 'idempotency_key']);
    t.index(['channel_id', 'created_at']);
  });

  await db.schema.createTable('sandbox_failures', (t) => {
    t.string('channel_id', 40).primary();
    t.string('account_id', 40).notNullable();
    // rate_limited | transient | permanent | timeout_after_post
    t.string('mode', 30).notNullable();
    t.integer('remaining').notNullable();
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['sandbox_failures', 'sandbox_posts', 'first_comment_steps', 'publish_attempts']) {
    await db.schema.dropTableIfExists(table);
  }
  await db.schema.alterTable('posts', (t) => {
    t.dropIndex(['status', 'lease_expires_at']);
    t.dropUnique(['channel_id', 'network_post_id'], 'posts_channel_network_post_unique');
    t.dropColumns('claimed_by', 'lease_expires_at', 'next_attempt_at', 'attempt_count');
  });
}
