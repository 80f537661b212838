import type { Db } from '../connection.js';
import { toPost, toRow, type PostRecord } from './posts.js';
import { jsonText } from './rows.js';

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

  async setMetrics(postId: string, metrics: Record<string, number>, now: number): Promise<void> {
    await this.db('posts')
      .where({ id: postId })
      .update({ metrics: jsonText(metrics), updated_at: now });
  }
}
