import type { Knex } from 'knex';

/**
 * The media library (one per workspace), pending signed uploads, and shareable calendars
 * (saved views behind an unguessable link, stored only as the token's hash).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('media', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('filename', 200).notNullable();
    t.string('mime_type', 100).notNullable();
    // image | video
    t.string('kind', 10).notNullable();
    t.bigInteger('size_bytes').notNullable();
    t.integer('width');
    t.integer('height');
    t.integer('duration_ms');
    // Where the bytes live in the configured storage (local disk or S3 bucket).
    t.string('storage_key', 300).notNullable();
    // upload | import | generated
    t.string('source', 20).notNullable();
    t.text('source_url');
    t.bigInteger('created_at').notNullable();
    t.index(['account_id', 'workspace_id', 'created_at']);
  });

  await db.schema.createTable('media_uploads', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('filename', 200).notNullable();
    t.string('declared_mime_type', 100).notNullable();
    t.bigInteger('max_bytes').notNullable();
    t.bigInteger('received_bytes');
    t.string('media_id', 40);
    t.bigInteger('expires_at').notNullable();
    t.bigInteger('created_at').notNullable();
    t.index(['account_id']);
    t.index(['expires_at']);
  });

  await db.schema.createTable('shareable_calendars', (t) => {
    t.string('id', 40).primary();
    t.string('account_id', 40).notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('workspace_id', 40).notNullable().references('workspaces.id').onDelete('CASCADE');
    t.string('name', 200).notNullable();
    t.string('token_hash', 64).notNullable().unique();
    // The saved view, as JSON: channelIds, labelIds, from, to, timezone, statuses, showText.
    t.text('view').notNullable();
    t.bigInteger('expires_at');
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.index(['account_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  for (const table of ['shareable_calendars', 'media_uploads', 'media']) {
    await db.schema.dropTableIfExists(table);
  }
}
