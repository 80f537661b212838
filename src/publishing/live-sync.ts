/**
 * Live-post sync, one channel at a time:
 * - one page of the channel's recent posts a sync (syncDepth of them) finds new posts and refreshes the
 *   metrics people look at;
 * - a post Herald published (or a live post it already knows) gets its metrics updated;
 * - a post made under one of Herald's attempt keys is Herald's own, even before its worker records the
 *   answer (or after that worker died): the publisher or reconciliation claims it, never live-post sync;
 * - anything else becomes a live post by the domain's rule (domain/posts/live-post.ts).
 */
import type { ChannelRecord } from '../db/repositories/channels.js';
import type { PostRecord } from '../db/repositories/posts.js';
import { recordPostEvent } from '../domain/events/events.js';
import { livePostRecord } from '../domain/posts/live-post.js';
import { networkChannel, type WorkerRuntime } from './runtime.js';

export async function syncChannel(rt: WorkerRuntime, channel: ChannelRecord): Promise<void> {
  const network = rt.ctx.networks.get(channel.network);
  if (!network) return;
  const { posts: recent } = await network.recentPosts(networkChannel(channel), { cursor: null, limit: rt.options.syncDepth });
  const known = new Map((await rt.livePosts.ownByNetworkIds(channel.id, recent.map((p) => p.networkPostId))).map((p) => [p.networkPostId, p]));
  const ours = await rt.attempts.knownAttemptKeys(recent.flatMap((p) => (p.attemptKey ? [p.attemptKey] : [])));
  const now = rt.now();
  const fresh: PostRecord[] = [];
  for (const found of recent) {
    const post = known.get(found.networkPostId);
    if (post) {
      if (post.isLive || post.status === 'published') await rt.livePosts.setMetrics(post.id, found.metrics, now);
      continue;
    }
    if (found.attemptKey && ours.has(found.attemptKey)) continue;
    fresh.push(livePostRecord(channel, found, now));
  }
  await rt.ctx.deps.repos.inTransaction(async (repos) => {
    const stored = new Set(await repos.livePosts.insertLivePosts(fresh));
    for (const post of fresh.filter((p) => stored.has(p.id))) await recordPostEvent(repos, now, 'live_post.found', post);
  });
}
