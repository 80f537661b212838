import type { Knex } from 'knex';

/**
 * Request budgets as sliding logs (src/domain/rate-limits.ts): one row per budget holding the times of its
 * last `limit` admitted requests, replacing the GCRA buckets of rate_limit_buckets, which let a budget of L
 * a minute pass up to 2L - 1 requests in some 60 s. The buckets' state is dropped: every budget starts full.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.dropTable('rate_limit_buckets');
  await db.schema.createTable('rate_limit_logs', (t) => {
    t.string('bucket', 200).primary();
    // A ring of `limit` fixed-width entries (milliseconds since the epoch, zero-padded, 0 for unused).
    t.text('times').notNullable();
    // The ring's oldest entry, the one the next admitted request overwrites.
    t.integer('head').notNullable();
    // Whether the statement that last touched the row admitted its request (1) or refused it (0).
    t.integer('admitted').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at']);
  });
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('rate_limit_logs');
  await db.schema.createTable('rate_limit_buckets', (t) => {
    t.string('bucket', 200).primary();
    t.bigInteger('tat').notNullable();
    t.string('last_token', 32).notNullable();
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at']);
  });
}
