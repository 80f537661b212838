import type { Knex } from 'knex';
import { CHARGE_BUDGETS } from './021_rate_limit_admissions.js';

/**
 * Budgets are charged by one algorithm on both databases (src/db/repositories/rate-limits.ts), so Postgres's copy of
 * it, herald_charge_budgets, goes.
 */
export async function up(db: Knex): Promise<void> {
  if (db.client.config.client === 'pg') await db.raw('DROP FUNCTION IF EXISTS herald_charge_budgets');
}

export async function down(db: Knex): Promise<void> {
  if (db.client.config.client === 'pg') await db.raw(CHARGE_BUDGETS);
}
