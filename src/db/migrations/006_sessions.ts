import type { Knex } from 'knex';

/**
 * Browser sign-in sessions, held on the server so that signing out ends them everywhere: the cookie
 * carries a random token, the table only its hash.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('browser_sessions', (t) => {
    t.string('token_hash', 64).primary();
    t.string('account_id', 40).notNullable().references('accounts.id').onDelete('CASCADE');
    t.string('user_id', 40).notNullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at']);
    t.index(['account_id', 'user_id']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('browser_sessions');
}
