import type { Knex } from 'knex';

/**
 * Fewer notes of changed hours (migration 027): an update notes a post's hours only when a column the rollup counts
 * changed value (a sync that wrote the counters a post already had notes nothing), and an update that leaves the
 * post in its channel and hour notes that hour once, not twice. A sync of 10,000 posts then leaves 10,000 notes to
 * recount and delete, where it left 20,000.
 */
const WATCHED = ['status', 'is_live', 'published_at', 'metrics', 'channel_id'];

export async function up(db: Knex): Promise<void> {
  if (db.client.config.client === 'pg') {
    await db.raw('DROP TRIGGER posts_insight_dirty ON posts');
    await db.raw(`CREATE OR REPLACE FUNCTION herald_insight_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP <> 'INSERT' AND OLD.published_at IS NOT NULL THEN
    INSERT INTO insight_dirty (channel_id, hour) VALUES (OLD.channel_id, OLD.published_at / 3600000);
  END IF;
  IF TG_OP <> 'DELETE' AND NEW.published_at IS NOT NULL THEN
    IF TG_OP = 'UPDATE' THEN
      IF OLD.published_at IS NOT NULL AND OLD.channel_id = NEW.channel_id
        AND OLD.published_at / 3600000 = NEW.published_at / 3600000 THEN
        RETURN NULL;
      END IF;
    END IF;
    INSERT INTO insight_dirty (channel_id, hour) VALUES (NEW.channel_id, NEW.published_at / 3600000);
  END IF;
  RETURN NULL;
END $$`);
    await db.raw(`CREATE TRIGGER posts_insight_dirty AFTER INSERT OR DELETE ON posts
      FOR EACH ROW EXECUTE FUNCTION herald_insight_dirty()`);
    const changed = WATCHED.map((c) => `OLD.${c} IS DISTINCT FROM NEW.${c}`).join(' OR ');
    await db.raw(`CREATE TRIGGER posts_insight_dirty_update AFTER UPDATE OF ${WATCHED.join(', ')} ON posts
      FOR EACH ROW WHEN (${changed}) EXECUTE FUNCTION herald_insight_dirty()`);
  } else {
    await db.raw('DROP TRIGGER posts_insight_dirty_update');
    const changed = WATCHED.map((c) => `OLD.${c} IS NOT NEW.${c}`).join(' OR ');
    const stays =
      'OLD.published_at IS NOT NULL AND OLD.channel_id = NEW.channel_id ' +
      'AND OLD.published_at / 3600000 = NEW.published_at / 3600000';
    await db.raw(`CREATE TRIGGER posts_insight_dirty_update AFTER UPDATE OF ${WATCHED.join(', ')} ON posts
      WHEN ${changed} BEGIN
      INSERT INTO insight_dirty (channel_id, hour) SELECT OLD.channel_id, OLD.published_at / 3600000
        WHERE OLD.published_at IS NOT NULL;
      INSERT INTO insight_dirty (channel_id, hour) SELECT NEW.channel_id, NEW.published_at / 3600000
        WHERE NEW.published_at IS NOT NULL AND NOT (${stays});
    END`);
  }
}

/** Back to migration 027's triggers. */
export async function down(db: Knex): Promise<void> {
  const watched = WATCHED.join(', ');
  if (db.client.config.client === 'pg') {
    await db.raw('DROP TRIGGER posts_insight_dirty_update ON posts');
    await db.raw('DROP TRIGGER posts_insight_dirty ON posts');
    await db.raw(`CREATE OR REPLACE FUNCTION herald_insight_dirty() RETURNS trigger LANGUAGE plpgsql AS $$
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
  } else {
    await db.raw('DROP TRIGGER posts_insight_dirty_update');
    const note = (row: 'NEW' | 'OLD') =>
      `INSERT INTO insight_dirty (channel_id, hour) SELECT ${row}.channel_id, ${row}.published_at / 3600000 ` +
      `WHERE ${row}.published_at IS NOT NULL;`;
    await db.raw(`CREATE TRIGGER posts_insight_dirty_update AFTER UPDATE OF ${watched} ON posts
      BEGIN ${note('OLD')} ${note('NEW')} END`);
  }
}
