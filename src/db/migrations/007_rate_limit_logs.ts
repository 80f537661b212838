import type { Knex } from 'knex';

/**
 * Request budgets as sliding logs (src/domain/rate-limits.ts): one row per budget holding the times of its
 * recent admitted requests (at most `limit` of them), so a budget of L a minute passes at most L requests in
 * any 60 s. The API budgets leave the fixed windows of rate_limit_windows, which the OAuth failure counters keep.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('rate_limit_logs', (t) => {
    t.string('bucket', 200).primary();
    // Fixed-width entries, oldest first: milliseconds since the epoch, zero-padded.
    t.text('times').notNullable();
    // Whether the statement that last touched the row admitted its request (1) or refused it (0).
    t.integer('admitted').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('rate_limit_logs');
}
