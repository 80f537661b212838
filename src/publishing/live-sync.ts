/**
 * Live-post sync, one channel at a time:
 * - a sync reads the channel's recent posts a page (syncDepth) at a time, newest first, and goes on to older
 *   pages while a whole page is new to Herald (many posts made outside it since the last sync), at most
 *   SYNC_MAX_PAGES; it refreshes the metrics people look at on the way;
 * - a post Herald published (or a live post it already knows) gets its metrics updated;
 * - a post made under one of Herald's attempt keys is Herald's own, even before its worker records the
 *   answer (or after that worker died): the publisher or reconciliation claims it, never live-post sync;
 * - anything else becomes a live post by the domain's rule (domain/posts/live-post.ts);
 * - the counters of each post it sees are kept as samples when they changed, and the channel's audience where the
 *   network reports one (domain/insights/samples.ts), the history insights are drawn from; a page's counters are
 *   written together, with the insights rollup's hours they touched, in one unit of work;
 * - a paused channel (its network said its budget is spent) is not read until the pause ends, and a refusal for
 *   rate while reading pauses it (channel-pause.ts).
 */
import type { ChannelRecord } from '../db/repositories/channels.js';
import type { PostRecord } from '../db/repositories/posts.js';
import { recordPostEvent } from '../domain/events/events.js';
import { livePostRecord } from '../domain/posts/live-post.js';
import { connectorChannel } from '../domain/networks/channel-connections.js';
import type { ConnectorChannel, NetworkConnector, RecentPostsPage } from '../domain/networks/connector.js';
import { keepCounters, postSample, sameCounters, type CountersRead } from '../domain/insights/samples.js';
import type { PostSampleRecord } from '../db/repositories/insights.js';
import { pauseOnRateRefusal, pausedUntil } from './channel-pause.js';
import type { WorkerRuntime } from './runtime.js';

/** A sync reads at most this many pages of a channel, so one very active account cannot hold the worker. */
export const SYNC_MAX_PAGES = 5;

export async function syncChannel(rt: WorkerRuntime, channel: ChannelRecord): Promise<void> {
  const network = rt.ctx.networks.get(channel.network);
  // A channel that needs reconnecting has no credentials the network takes: nothing to read until it is.
  if (!network || (channel.status !== undefined && channel.status !== 'active')) return;
  if (pausedUntil(channel, rt.now())) return;
  const ref = connectorChannel(rt.ctx.deps, channel);
  await syncPosts(rt, channel, network, ref);
  await sampleAudience(rt, channel, network, ref);
}

async function syncPosts(
  rt: WorkerRuntime,
  channel: ChannelRecord,
  network: NetworkConnector,
  ref: ConnectorChannel,
): Promise<void> {
  let cursor: string | null = null;
  for (let page = 0; page < SYNC_MAX_PAGES; page++) {
    let answer: RecentPostsPage;
    try {
      answer = await network.recentPosts(ref, { cursor, limit: rt.options.syncDepth });
    } catch (error) {
      await pauseOnRateRefusal(rt, channel.id, error);
      throw error;
    }
    const { posts: recent, nextCursor } = answer;
    const known = new Map(
      (
        await rt.livePosts.ownByNetworkIds(
          channel.id,
          recent.map((p) => p.networkPostId),
        )
      ).map((p) => [p.networkPostId, p]),
    );
    const ours = await rt.attempts.knownAttemptKeys(recent.flatMap((p) => (p.attemptKey ? [p.attemptKey] : [])));
    const now = rt.now();
    const fresh: PostRecord[] = [];
    const samples: PostSampleRecord[] = [];
    const counted: CountersRead[] = [];
    for (const found of recent) {
      const post = known.get(found.networkPostId);
      if (post) {
        if (post.isLive || post.status === 'published') {
          const sample = postSample(post, found.metrics, now);
          if (sample) samples.push(sample);
          if (!sameCounters(post.metrics, found.metrics)) counted.push({ postId: post.id, metrics: found.metrics });
        }
        continue;
      }
      if (found.attemptKey && ours.has(found.attemptKey)) continue;
      fresh.push(livePostRecord(channel, found, now));
    }
    await rt.ctx.deps.repos.inTransaction(async (repos) => {
      const stored = new Set(await repos.livePosts.insertLivePosts(fresh));
      for (const post of fresh.filter((p) => stored.has(p.id))) {
        await recordPostEvent(repos, now, 'live_post.found', post);
        const sample = postSample(post, post.metrics ?? {}, now, true);
        if (sample) samples.push(sample);
      }
      await keepCounters(rt.ctx.deps, counted, samples, now);
    });
    if (!nextCursor || known.size > 0 || fresh.length < recent.length) return;
    cursor = nextCursor;
  }
}

async function sampleAudience(
  rt: WorkerRuntime,
  channel: ChannelRecord,
  network: NetworkConnector,
  ref: ConnectorChannel,
): Promise<void> {
  if (!network.audience || !network.capabilities.counters?.audience) return;
  let followers: number | null;
  try {
    followers = await network.audience(ref);
  } catch (error) {
    await pauseOnRateRefusal(rt, channel.id, error);
    throw error;
  }
  if (followers === null || !Number.isFinite(followers) || followers < 0) return;
  await rt.ctx.deps.repos.insights.insertAudienceSample({
    channelId: channel.id,
    accountId: channel.accountId,
    sampledAt: rt.now(),
    followers: Math.floor(followers),
  });
}
