import type { Knex } from 'knex';

/**
 * A publish attempt's network handle (an upload session, a media container, a publish id), written before the
 * call that can make the post, so an attempt whose outcome is unknown is settled by asking about that handle.
 * Numbered 017: 010 to 016 belong to the network and MCP work merged beside this one.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('publish_attempts', (t) => {
    t.text('network_handle').nullable();
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.alterTable('publish_attempts', (t) => {
    t.dropColumn('network_handle');
  });
}
