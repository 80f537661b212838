import type { Knex } from 'knex';

/**
 * A scheduled post's rehearsal (domain/posts/preflight.ts): `risk` is what the last one found wrong (JSON: reason,
 * advice, checkedAt), null when it passed; `rehearsed_at` is when a worker took it for its window, null until then
 * and again after an edit, so each post is rehearsed once per window by one worker. The few posts at risk get an index
 * of their own: the worker looks again at those edited, and the app's banner lists an account's.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('posts', (t) => {
    t.text('risk').nullable();
    t.bigInteger('rehearsed_at').nullable();
  });
  await db.raw('CREATE INDEX posts_at_risk_index ON posts (account_id, date_time) WHERE risk IS NOT NULL');
}

export async function down(db: Knex): Promise<void> {
  await db.raw('DROP INDEX posts_at_risk_index');
  await db.schema.alterTable('posts', (t) => {
    t.dropColumn('rehearsed_at');
    t.dropColumn('risk');
  });
}
