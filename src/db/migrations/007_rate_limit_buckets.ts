import type { Knex } from 'knex';

/**
 * Request budgets as GCRA buckets (src/domain/rate-limits.ts): one row per budget holding its theoretical
 * arrival time, replacing the fixed windows of rate_limit_windows for the API budgets (the OAuth failure
 * counters keep their windows).
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('rate_limit_buckets', (t) => {
    t.string('bucket', 200).primary();
    t.bigInteger('tat').notNullable();
    // Which request last passed: the one that finds its own token here was allowed.
    t.string('last_token', 32).notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('rate_limit_buckets');
}
