import type { Knex } from 'knex';

/**
 * A year's report from a few hundred rows: each channel's counters summed per UTC day (`insight_days`) and the same
 * per label (`insight_label_days`), beside the hours of migration 027. The other sums of a period (posts,
 * engagement, reach, the weekday-and-hour cells) are added up by the database from the hours and quarters; only the
 * counters, an open set of names kept as JSON, are summed by Herald, and a day is 24 hours' worth of them at once.
 * A day is recounted from its hours whenever one of them is (domain/insights/rollups.ts); the hours of posts already
 * counted are noted here, so their days are counted before the next read.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('insight_days', (t) => {
    t.string('channel_id', 40).notNullable().references('channels.id').onDelete('CASCADE');
    t.bigInteger('day').notNullable();
    t.string('account_id', 40).notNullable();
    // Every counter summed over the day's posts, as JSON.
    t.text('counters').notNullable();
    t.primary(['channel_id', 'day']);
  });
  await db.schema.createTable('insight_label_days', (t) => {
    t.string('label_id', 40).notNullable().references('labels.id').onDelete('CASCADE');
    t.string('channel_id', 40).notNullable().references('channels.id').onDelete('CASCADE');
    t.bigInteger('day').notNullable();
    t.string('account_id', 40).notNullable();
    t.text('counters').notNullable();
    t.primary(['label_id', 'channel_id', 'day']);
    t.index(['channel_id', 'day']);
  });
  await db.raw(`INSERT INTO insight_dirty (channel_id, hour)
    SELECT DISTINCT channel_id, published_at / 3600000 FROM posts WHERE published_at IS NOT NULL`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('insight_label_days');
  await db.schema.dropTable('insight_days');
}
