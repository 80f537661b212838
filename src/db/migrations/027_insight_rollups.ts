import type { Knex } from 'knex';

/**
 * Insights at scale: a period's posts are found by channel and publish time (an index), and the figures of a
 * period come from a rollup per channel and UTC hour of publication (`insight_hours`: posts, engagement, reach,
 * counters), and the same per label (`insight_label_hours`), so a year's report reads hours, not posts
 * (domain/insights/rollups.ts keeps them).
 * The database itself notes which hours a change to a published post touches (`insight_dirty`, written by a
 * trigger on posts and one on post_labels, whatever statement made the change), so no write path can forget the
 * rollup; the hours noted
 * are recounted from their posts before the next read. The hours of existing posts are noted here, to be counted.
 */
export async function up(db: Knex): Promise<void> {
  await db.schema.alterTable('posts', (t) => {
    t.index(['channel_id', 'published_at']);
  });
  await db.schema.createTable('insight_hours', (t) => {
    t.string('channel_id', 40).notNullable().references('channels.id').onDelete('CASCADE');
    t.bigInteger('hour').notNullable();
    t.string('account_id', 40).notNullable();
    t.integer('posts').notNullable();
    t.bigInteger('engagement').notNullable();
    // Null when none of the hour's posts has a reach counter, never a zero.
    t.bigInteger('reach');
    t.bigInteger('engaged_with_reach').notNullable();
    // The most engagement one post of the hour has: top posts are looked for only in the hours that can hold them.
    t.bigInteger('top_engagement').notNullable();
    // Every counter summed over the hour's posts, as JSON.
    t.text('counters').notNullable();
    t.primary(['channel_id', 'hour']);
  });
  await db.schema.createTable('insight_label_hours', (t) => {
    t.string('label_id', 40).notNullable().references('labels.id').onDelete('CASCADE');
    t.string('channel_id', 40).notNullable().references('channels.id').onDelete('CASCADE');
    t.bigInteger('hour').notNullable();
    t.string('account_id', 40).notNullable();
    t.integer('posts').notNullable();
    t.bigInteger('engagement').notNullable();
    t.bigInteger('reach');
    t.bigInteger('engaged_with_reach').notNullable();
    t.bigInteger('top_engagement').notNullable();
    t.text('counters').notNullable();
    t.primary(['label_id', 'channel_id', 'hour']);
    t.index(['channel_id', 'hour']);
  });
  await db.schema.createTable('insight_dirty', (t) => {
    t.bigIncrements('id');
    t.string('channel_id', 40).notNullable();
    t.bigInteger('hour').notNullable();
  });
  const watched = 'status, is_live, published_at, metrics, channel_id';
  if (db.client.config.client === 'pg') {
    await db.raw(`CREATE FUNCTION herald_insight_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.published_at IS NOT NULL THEN
    INSERT INTO insight_dirty (channel_id, hour) VALUES (OLD.channel_id, OLD.published_at / 3600000);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.published_at IS NOT NULL THEN
    INSERT INTO insight_dirty (channel_id, hour) VALUES (NEW.channel_id, NEW.published_at / 3600000);
  END IF;
  RETURN NULL;
END $$`);
    await db.raw(`CREATE TRIGGER posts_insight_dirty AFTER INSERT OR DELETE OR UPDATE OF ${watched} ON posts
      FOR EACH ROW EXECUTE FUNCTION herald_insight_dirty()`);
    await db.raw(`CREATE FUNCTION herald_insight_label_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO insight_dirty (channel_id, hour) SELECT channel_id, published_at / 3600000 FROM posts
    WHERE id = (CASE WHEN TG_OP = 'DELETE' THEN OLD.post_id ELSE NEW.post_id END) AND published_at IS NOT NULL;
  RETURN NULL;
END $$`);
    await db.raw(`CREATE TRIGGER post_labels_insight_dirty AFTER INSERT OR DELETE ON post_labels
      FOR EACH ROW EXECUTE FUNCTION herald_insight_label_dirty()`);
  } else {
    const note = (row: 'NEW' | 'OLD') =>
      `INSERT INTO insight_dirty (channel_id, hour) SELECT ${row}.channel_id, ${row}.published_at / 3600000 ` +
      `WHERE ${row}.published_at IS NOT NULL;`;
    await db.raw(`CREATE TRIGGER posts_insight_dirty_insert AFTER INSERT ON posts BEGIN ${note('NEW')} END`);
    await db.raw(`CREATE TRIGGER posts_insight_dirty_delete AFTER DELETE ON posts BEGIN ${note('OLD')} END`);
    await db.raw(
      `CREATE TRIGGER posts_insight_dirty_update AFTER UPDATE OF ${watched} ON posts ` +
        `BEGIN ${note('OLD')} ${note('NEW')} END`,
    );
    const noteLabel = (row: 'NEW' | 'OLD') =>
      `INSERT INTO insight_dirty (channel_id, hour) SELECT channel_id, published_at / 3600000 FROM posts ` +
      `WHERE id = ${row}.post_id AND published_at IS NOT NULL;`;
    for (const [name, row] of [
      ['insert', 'NEW'],
      ['delete', 'OLD'],
    ] as const) {
      await db.raw(
        `CREATE TRIGGER post_labels_insight_dirty_${name} AFTER ${name.toUpperCase()} ON post_labels ` +
          `BEGIN ${noteLabel(row)} END`,
      );
    }
  }
  await db.raw(`INSERT INTO insight_dirty (channel_id, hour)
    SELECT DISTINCT channel_id, published_at / 3600000 FROM posts WHERE published_at IS NOT NULL`);
}

export async function down(db: Knex): Promise<void> {
  if (db.client.config.client === 'pg') {
    await db.raw('DROP TRIGGER post_labels_insight_dirty ON post_labels');
    await db.raw('DROP FUNCTION herald_insight_label_dirty()');
    await db.raw('DROP TRIGGER posts_insight_dirty ON posts');
    await db.raw('DROP FUNCTION herald_insight_dirty()');
  } else {
    for (const name of ['insert', 'delete']) await db.raw(`DROP TRIGGER post_labels_insight_dirty_${name}`);
    for (const name of ['insert', 'delete', 'update']) await db.raw(`DROP TRIGGER posts_insight_dirty_${name}`);
  }
  await db.schema.dropTable('insight_dirty');
  await db.schema.dropTable('insight_label_hours');
  await db.schema.dropTable('insight_hours');
  await db.schema.alterTable('posts', (t) => {
    t.dropIndex(['channel_id', 'published_at']);
  });
}
