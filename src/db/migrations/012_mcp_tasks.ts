import type { Knex } from 'knex';

/**
 * MCP tasks (issue 18): a long tool call answered with a handle, its state kept here so any instance can answer
 * tasks/get for a task another instance runs. A task belongs to one account and one credential (an API key, or
 * an OAuth token family, which outlives its refreshed access tokens); `expires_at` is its creation plus its ttl,
 * after which it is neither shown nor kept.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('mcp_tasks', (t) => {
    // 32 random bytes, base64url: a task id is the bearer of its result and must not be guessable.
    t.string('id', 64).primary();
    t.string('account_id', 64).notNullable().references('id').inTable('accounts').onDelete('CASCADE');
    t.string('token_kind', 16).notNullable();
    t.string('token_id', 64).notNullable();
    t.string('tool', 64).notNullable();
    // working, completed, failed or cancelled: the last three never change again.
    t.string('status', 16).notNullable();
    t.string('status_message', 1000).nullable();
    // The CallToolResult (completed) or the JSON-RPC error (failed), as JSON.
    t.text('result').nullable();
    t.text('error').nullable();
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.integer('ttl_ms').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['account_id', 'token_kind', 'token_id', 'created_at']);
    t.index(['expires_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('mcp_tasks');
}
