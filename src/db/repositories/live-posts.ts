import { isPostgres, type Db } from '../connection.js';
import { runSql } from '../sqlite-statements.js';
import { toPost, toRow, type PostRecord } from './posts.js';

/** Posts whose counters one statement writes: a sync's page of them costs one round trip, not one a post. */
const METRICS_CHUNK = 500;

/**
 * Posts found on the network by live-post sync, and the metrics sync refreshes (across accounts: the worker serves the
 * instance).
 */
export class LivePostsRepository {
  constructor(private readonly db: Db) {}

  /** Herald's own published posts on a channel with these network ids. */
  async ownByNetworkIds(channelId: string, networkPostIds: readonly string[]): Promise<PostRecord[]> {
    if (networkPostIds.length === 0) return [];
    const rows = await this.db('posts').where({ channel_id: channelId }).whereIn('network_post_id', networkPostIds);
    return rows.map(toPost);
  }

  /** Stores posts found on the network; a post another worker stored first is left as it is. Returns the ids stored. */
  async insertLivePosts(records: PostRecord[]): Promise<string[]> {
    if (records.length === 0) return [];
    const rows = await this.db('posts')
      .insert(records.map(toRow))
      .onConflict(['channel_id', 'network_post_id'])
      .ignore()
      .returning('id');
    return rows.map((row: { id: string }) => row.id);
  }

  /**
   * The posts' counters, a statement per chunk: their ids and counters go as one JSON object (id to counters) that the
   * database itself spreads into rows, the same statement on both.
   */
  async setMetrics(
    updates: readonly { postId: string; metrics: Record<string, number> }[],
    now: number,
  ): Promise<void> {
    const rows = isPostgres(this.db) ? 'json_each_text(?::json)' : 'json_each(?)';
    for (let i = 0; i < updates.length; i += METRICS_CHUNK) {
      const byId: Record<string, Record<string, number>> = {};
      for (const { postId, metrics } of updates.slice(i, i + METRICS_CHUNK)) byId[postId] = metrics;
      await runSql(
        this.db,
        `UPDATE posts SET metrics = counted.value, updated_at = ? FROM ${rows} AS counted WHERE posts.id = counted.key`,
        [now, JSON.stringify(byId)],
      );
    }
  }
}
