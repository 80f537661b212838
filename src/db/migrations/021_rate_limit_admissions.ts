import type { Knex } from 'knex';
import { up as createLogs } from './007_rate_limit_logs.js';

/**
 * Request budgets as admissions kept one row per millisecond (src/domain/rate-limits.ts), replacing the
 * one-row logs of 007 whose whole text every request rewrote: with budgets set high that was the REST read's
 * largest cost (BENCHMARKS.md). A budget's row keeps how many admissions it holds, so charging it reads and
 * writes a few rows whatever its limit. Budgets in flight when this runs start afresh.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.dropTable('rate_limit_logs');
  await db.schema.createTable('rate_limit_budgets', (t) => {
    t.string('bucket', 200).primary();
    // Admissions held in rate_limit_admissions for this bucket (the sum of their n), kept with every charge.
    t.bigInteger('kept').notNullable();
    // When the latest admission leaves the window: then the budget holds nothing and housekeeping drops it.
    t.bigInteger('expires_at').notNullable();
    t.index(['expires_at']);
  });
  await db.schema.createTable('rate_limit_admissions', (t) => {
    t.string('bucket', 200).notNullable();
    t.bigInteger('at').notNullable();
    // Admissions in the same millisecond share a row.
    t.integer('n').notNullable();
    t.primary(['bucket', 'at']);
  });
  if (db.client.config.client === 'pg') await db.raw(CHARGE_BUDGETS);
}

export async function down(db: Knex): Promise<void> {
  if (db.client.config.client === 'pg') await db.raw('DROP FUNCTION IF EXISTS herald_charge_budgets');
  await db.schema.dropTable('rate_limit_admissions');
  await db.schema.dropTable('rate_limit_budgets');
  await createLogs(db);
}

/**
 * Postgres charged budgets in one round trip until migration 023 dropped this function for the one algorithm in
 * src/db/repositories/rate-limits.ts; callers pass the budgets sorted by bucket, so two charges lock in one order.
 */
export const CHARGE_BUDGETS = `
CREATE OR REPLACE FUNCTION herald_charge_budgets(
  p_buckets text[], p_limits bigint[], p_windows bigint[], p_charged boolean[], p_now bigint
) RETURNS TABLE (budget_count bigint, budget_oldest bigint, budget_latest bigint, budget_admitted boolean)
LANGUAGE plpgsql AS $$
DECLARE
  counts bigint[] := '{}';
  held bigint;
  spent bigint;
  admitted boolean := true;
BEGIN
  FOR i IN 1 .. array_length(p_buckets, 1) LOOP
    INSERT INTO rate_limit_budgets AS b (bucket, kept, expires_at) VALUES (p_buckets[i], 0, p_now)
      ON CONFLICT (bucket) DO UPDATE SET kept = b.kept
      RETURNING b.kept INTO held;
    WITH left_window AS (
      DELETE FROM rate_limit_admissions a WHERE a.bucket = p_buckets[i] AND a.at <= p_now - p_windows[i] RETURNING a.n
    ), ahead AS (
      DELETE FROM rate_limit_admissions a WHERE a.bucket = p_buckets[i] AND a.at > p_now + p_windows[i] RETURNING a.n
    ) SELECT coalesce((SELECT sum(n) FROM left_window), 0) + coalesce((SELECT sum(n) FROM ahead), 0) INTO spent;
    counts[i] := held - spent;
    IF p_charged[i] AND counts[i] >= p_limits[i] THEN admitted := false; END IF;
  END LOOP;
  FOR i IN 1 .. array_length(p_buckets, 1) LOOP
    IF admitted AND p_charged[i] THEN
      INSERT INTO rate_limit_admissions AS a (bucket, at, n) VALUES (p_buckets[i], p_now, 1)
        ON CONFLICT (bucket, at) DO UPDATE SET n = a.n + 1;
      counts[i] := counts[i] + 1;
      UPDATE rate_limit_budgets SET kept = counts[i], expires_at = greatest(expires_at, p_now + p_windows[i])
        WHERE bucket = p_buckets[i];
    ELSE
      UPDATE rate_limit_budgets SET kept = counts[i] WHERE bucket = p_buckets[i];
    END IF;
    RETURN QUERY SELECT counts[i],
      (SELECT min(a.at) FROM rate_limit_admissions a WHERE a.bucket = p_buckets[i]),
      (SELECT max(a.at) FROM rate_limit_admissions a WHERE a.bucket = p_buckets[i]),
      admitted;
  END LOOP;
END
$$`;
