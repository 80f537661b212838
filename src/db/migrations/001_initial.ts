import type { Knex } from 'knex';

/** Accounts, identity, channels, posts, and the request bookkeeping (idempotency, rate limits). */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('accounts', (t) => {
    t.string('id', 40).primary();
    t.string('name', 200).notNullable();
    t.bigInteger('created_at').notNullable();
  });

  await db.schema.createTable('users', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('email', 320).notNullable().unique();
    t.string('name', 200).notNullable();
    t.string('password_hash', 300);
    t.bigInteger('created_at').notNullable();
    t.index(['account_id']);
  });

  await db.schema.createTable('workspaces', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('name', 200).notNullable();
    t.boolean('approval_required').notNullable().defaultTo(false);
    t.bigInteger('created_at').notNullable();
    t.index(['account_id']);
  });

  await db.schema.createTable('memberships', (t) => {
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.string('role', 20).notNullable();
    t.primary(['workspace_id', 'user_id']);
  });

  await db.schema.createTable('channels', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('network', 40).notNullable();
    t.string('handle', 200).notNullable();
    t.string('name', 200).notNullable();
    t.string('timezone', 64).notNullable();
    t.text('credentials');
    t.boolean('queue_paused').notNullable().defaultTo(false);
    t.bigInteger('created_at').notNullable();
    t.index(['account_id']);
  });

  await db.schema.createTable('api_keys', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('user_id', 40).notNullable().references('users.id').onDelete('CASCADE');
    t.string('name', 200).notNullable();
    t.string('key_hash', 64).notNullable().unique();
    t.string('key_prefix', 16).notNullable();
    t.string('scopes', 200).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('last_used_at');
    t.bigInteger('revoked_at');
    t.index(['account_id']);
  });

  await db.schema.createTable('posts', (t) => {
    t.string('id', 64).primary();
    t.string('account_id', 40).notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('workspace_id', 40).notNullable();
    t.string('channel_id', 40).notNullable();
    t.string('group_id', 40);
    t.text('text').notNullable();
    // Publish time; null for drafts without a time.
    t.bigInteger('date_time');
    // Publish time, or creation time where there is none: the order of the merged (livePosts) listing.
    t.bigInteger('timeline_at').notNullable();
    t.boolean('is_scheduled').notNullable().defaultTo(false);
    t.boolean('is_draft').notNullable().defaultTo(false);
    t.boolean('is_live').notNullable().defaultTo(false);
    t.string('status', 20).notNullable();
    t.string('approval_status', 20);
    t.string('type', 20);
    t.string('source_type', 20);
    t.text('image_urls');
    t.text('video_urls');
    t.text('first_comment');
    t.text('channel_options');
    t.string('network_post_id', 200);
    t.text('permalink_url');
    t.text('metrics');
    t.text('last_error');
    t.bigInteger('published_at');
    t.bigInteger('created_at');
    t.bigInteger('updated_at');
    t.index(['account_id', 'is_live', 'id']);
    t.index(['account_id', 'timeline_at', 'id']);
    t.index(['status', 'date_time']);
    t.index(['group_id']);
  });

  await db.schema.createTable('idempotency_keys', (t) => {
    t.string('account_id', 40).notNullable();
    t.string('key', 255).notNullable();
    t.string('request_hash', 64).notNullable();
    t.integer('response_status');
    t.text('response_body');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.primary(['account_id', 'key']);
    t.index(['expires_at']);
  });

  await db.schema.createTable('rate_limit_windows', (t) => {
    t.string('bucket', 200).notNullable();
    t.bigInteger('window_start').notNullable();
    t.integer('hits').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.primary(['bucket', 'window_start']);
    t.index(['expires_at']);
  });

  await db.schema.createTable('instance_secrets', (t) => {
    t.string('name', 64).primary();
    t.string('value', 200).notNullable();
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of [
    'instance_secrets',
    'rate_limit_windows',
    'idempotency_keys',
    'posts',
    'api_keys',
    'channels',
    'memberships',
    'workspaces',
    'users',
    'accounts',
  ]) {
    await db.schema.dropTableIfExists(table);
  }
}
