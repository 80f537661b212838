import type { Knex } from 'knex';

/**
 * Events and webhooks (issue 17). `events` is the outbox: one row per state change, written in the change's
 * own transaction, read back by GET /events. Each event is fanned out in that same transaction to a
 * `webhook_deliveries` row per enabled endpoint of its workspace that asked for its type, and the worker
 * claims those rows with a lease like posts, so no change is lost between the database and a receiver.
 * Numbered 009 after a gap: 008 belongs to the channel-connection work merged beside this one.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('events', (t) => {
    // The order GET /events pages in: ids sort by time only within one process.
    t.bigIncrements('seq').primary();
    t.string('id', 64).notNullable().unique();
    t.string('account_id', 64).notNullable().references('id').inTable('accounts').onDelete('CASCADE');
    t.string('workspace_id', 64).notNullable();
    t.string('type', 64).notNullable();
    t.bigInteger('at').notNullable();
    t.string('post_id', 64).nullable();
    t.string('channel_id', 64).nullable();
    t.text('data').notNullable();
    t.index(['account_id', 'seq']);
    t.index(['account_id', 'post_id']);
  });
  await db.schema.createTable('webhook_endpoints', (t) => {
    t.string('id', 64).primary();
    t.string('account_id', 64).notNullable().references('id').inTable('accounts').onDelete('CASCADE');
    t.string('workspace_id', 64).notNullable();
    t.text('url').notNullable();
    t.string('description', 500).nullable();
    // A JSON array of event types.
    t.text('event_types').notNullable();
    // whsec_... sealed under the master key (domain/secret-box.ts).
    t.text('secret').notNullable();
    t.boolean('enabled').notNullable();
    t.string('disabled_reason', 500).nullable();
    // When the current run of failed attempts began; null while the endpoint answers.
    t.bigInteger('failing_since').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['workspace_id']);
    t.index(['account_id']);
  });
  await db.schema.createTable('webhook_deliveries', (t) => {
    t.string('id', 64).primary();
    t.string('account_id', 64).notNullable();
    t.string('endpoint_id', 64).notNullable().references('id').inTable('webhook_endpoints').onDelete('CASCADE');
    t.string('event_id', 64).notNullable().references('id').inTable('events').onDelete('CASCADE');
    t.string('status', 16).notNullable();
    t.integer('attempts').notNullable();
    t.bigInteger('next_attempt_at').nullable();
    // After this time a failed attempt ends the delivery as failed instead of backing off.
    t.bigInteger('give_up_at').notNullable();
    t.string('claimed_by', 200).nullable();
    t.bigInteger('lease_expires_at').nullable();
    t.bigInteger('last_attempt_at').nullable();
    t.integer('response_code').nullable();
    t.integer('duration_ms').nullable();
    t.string('last_error', 1000).nullable();
    t.bigInteger('created_at').notNullable();
    t.unique(['endpoint_id', 'event_id']);
    t.index(['status', 'next_attempt_at']);
    t.index(['endpoint_id', 'created_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('webhook_deliveries');
  await db.schema.dropTable('webhook_endpoints');
  await db.schema.dropTable('events');
}
