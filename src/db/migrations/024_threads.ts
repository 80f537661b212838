import type { Knex } from 'knex';

/**
 * Threads (multi-part posts): a post's parts after the first, kept with the post (JSON: each part's text and media,
 * and once published its network id and permalink), and the step that publishes them as a reply chain once the
 * post itself is out, claimed with a lease like first comments.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('posts', (t) => {
    t.text('thread').nullable();
  });
  await db.schema.createTable('thread_steps', (t) => {
    t.string('post_id', 64).primary().references('posts.id').onDelete('CASCADE');
    t.string('account_id', 40).notNullable();
    t.string('channel_id', 40).notNullable();
    // pending | done | failed | unconfirmed
    t.string('status', 20).notNullable();
    t.bigInteger('due_at').notNullable();
    t.integer('attempts').notNullable().defaultTo(0);
    t.string('claimed_by', 80);
    t.bigInteger('lease_expires_at');
    t.text('last_error');
    t.index(['status', 'due_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTableIfExists('thread_steps');
  await db.schema.alterTable('posts', (t) => {
    t.dropColumn('thread');
  });
}
