import type { Knex } from 'knex';

/**
 * Channels connected to real networks: the connection's state, the network account it is (so connecting the
 * same account again updates it), its credentials (the column 001 reserved) sealed under the master key with a version
 * for compare-and-swap refreshes, and the short-lived records of a connect flow in progress. Mastodon
 * registers Herald once per instance; that registration is kept for the next account there.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('channels', (t) => {
    t.string('status', 20).notNullable().defaultTo('active');
    t.text('status_reason');
    t.string('display_name', 200);
    t.text('avatar_url');
    t.bigInteger('connected_at');
    t.string('network_account_id', 300);
    t.integer('credentials_version').notNullable().defaultTo(0);
    t.bigInteger('credentials_expire_at');
    t.string('refresh_claimed_by', 100);
    t.bigInteger('refresh_claimed_until');
    t.bigInteger('rate_limited_until');
    t.integer('text_limit');
  });
  await db.schema.alterTable('channels', (t) => {
    t.index(['account_id', 'network', 'network_account_id']);
  });
  await db.schema.createTable('connect_flows', (t) => {
    t.string('state_hash', 64).primary();
    t.string('account_id', 40).notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('user_id', 40).notNullable();
    t.string('workspace_id', 40).notNullable();
    t.string('network', 40).notNullable();
    t.string('channel_id', 40);
    t.text('sealed');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at']);
  });
  await db.schema.createTable('network_apps', (t) => {
    t.string('network', 40).notNullable();
    t.string('origin', 300).notNullable();
    t.string('redirect_uri', 500).notNullable();
    t.text('sealed').notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['network', 'origin', 'redirect_uri']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('network_apps');
  await db.schema.dropTable('connect_flows');
  await db.schema.alterTable('channels', (t) => {
    t.dropIndex(['account_id', 'network', 'network_account_id']);
    for (const column of [
      'status',
      'status_reason',
      'display_name',
      'avatar_url',
      'connected_at',
      'network_account_id',
      'credentials_version',
      'credentials_expire_at',
      'refresh_claimed_by',
      'refresh_claimed_until',
      'rate_limited_until',
      'text_limit',
    ])
      t.dropColumn(column);
  });
}
