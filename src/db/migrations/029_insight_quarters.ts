import type { Knex } from 'knex';

/**
 * Insights in any zone from the rollup: each channel's published posts per quarter of a UTC hour
 * (`insight_quarters`), since every zone in use is a whole number of quarter hours from UTC, so a quarter always
 * falls in one local hour and a period's edges at local midnight fall between quarters. A quarter keeps what the
 * weekday-and-hour cells add up (posts, engagement, reach) and, for when to post, each post's publish time,
 * engagement and reach, oldest first (`scored`), so the rule's median and means stay exact without reading posts;
 * `insight_label_quarters` keeps the sums per label too.
 * Quarters are recounted with their hour (domain/insights/rollups.ts), from the hours migration 027's triggers note;
 * the hours of posts already counted are noted here, so their quarters are counted before the next read.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.createTable('insight_quarters', (t) => {
    t.string('channel_id', 40).notNullable().references('channels.id').onDelete('CASCADE');
    t.bigInteger('quarter').notNullable();
    t.string('account_id', 40).notNullable();
    t.integer('posts').notNullable();
    t.bigInteger('engagement').notNullable();
    // Null when none of the quarter's posts has a reach counter, never a zero.
    t.bigInteger('reach');
    // JSON: [publishedAt, engagement, reach or null] of each post, by publish time then id.
    t.text('scored').notNullable();
    t.primary(['channel_id', 'quarter']);
  });
  // The same sums for each label, so a report narrowed to a label tells its weekdays and hours in any zone too.
  await db.schema.createTable('insight_label_quarters', (t) => {
    t.string('label_id', 40).notNullable().references('labels.id').onDelete('CASCADE');
    t.string('channel_id', 40).notNullable().references('channels.id').onDelete('CASCADE');
    t.bigInteger('quarter').notNullable();
    t.string('account_id', 40).notNullable();
    t.integer('posts').notNullable();
    t.bigInteger('engagement').notNullable();
    t.bigInteger('reach');
    t.primary(['label_id', 'channel_id', 'quarter']);
    t.index(['channel_id', 'quarter']);
  });
  await db.raw(`INSERT INTO insight_dirty (channel_id, hour)
    SELECT DISTINCT channel_id, published_at / 3600000 FROM posts WHERE published_at IS NOT NULL`);
}

export async function down(db: Knex): Promise<void> {
  await db.schema.dropTable('insight_label_quarters');
  await db.schema.dropTable('insight_quarters');
}
