/**
 * What live sync keeps of the counters it reads (the history insights are drawn from):
 * - a post's counters are sampled the first time a sync sees them and whenever they differ from the last Herald
 *   stored for the post, so a post nobody touches costs no more rows however often it is synced;
 * - a sample names its post's channel, account and publish time, so a period's or a channel's samples are read and
 *   compacted without the post;
 * - a channel's audience is sampled on each sync where its network reports one (capabilities `counters.audience`);
 * - counters are whole non-negative numbers: anything else a network sent is left out, never stored as a guess;
 * - a sync's counters are written in its unit of work a statement per chunk, a post's only when they changed, and
 *   the rollup's hours they touched are recounted before the unit commits (rollups.ts): a read after a sync finds
 *   nothing left to recount, and one during it sees the rollup as it was, beside the counters as they were.
 */
import type { PostSampleRecord } from '../../db/repositories/insights.js';
import type { PostRecord } from '../../db/repositories/posts.js';
import type { DomainDeps } from '../deps.js';
import { refreshRollups } from './rollups.js';

/** A post's counters as a sync read them from its network. */
export interface CountersRead {
  postId: string;
  metrics: Record<string, number>;
}

export function cleanCounters(counters: Record<string, unknown>): Record<string, number> {
  const clean: Record<string, number> = {};
  for (const [name, value] of Object.entries(counters)) {
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) clean[name] = Math.floor(value);
  }
  return clean;
}

export function sameCounters(a: Record<string, number> | null, b: Record<string, number>): boolean {
  if (!a) return false;
  const keys = Object.keys(b);
  return keys.length === Object.keys(a).length && keys.every((key) => a[key] === b[key]);
}

/** The sample a sync stores for a post it read, or undefined when the counters are those Herald already has. */
export function postSample(
  post: Pick<PostRecord, 'id' | 'accountId' | 'channelId' | 'publishedAt' | 'metrics'>,
  read: Record<string, unknown>,
  now: number,
  fresh = false,
): PostSampleRecord | undefined {
  const counters = cleanCounters(read);
  if (!fresh && sameCounters(post.metrics, counters)) return undefined;
  if (Object.keys(counters).length === 0) return undefined;
  return {
    postId: post.id,
    accountId: post.accountId,
    channelId: post.channelId,
    publishedAt: post.publishedAt ?? now,
    sampledAt: now,
    counters,
  };
}

/**
 * Writes what a sync read: the posts' latest counters and their samples, then recounts the hours of the rollup they
 * touched. Called in the sync's unit of work, which it joins.
 */
export async function keepCounters(
  deps: DomainDeps,
  counted: readonly CountersRead[],
  samples: readonly PostSampleRecord[],
  now: number,
): Promise<void> {
  await deps.repos.livePosts.setMetrics(counted, now);
  await deps.repos.insights.insertPostSamples(samples);
  await refreshRollups(deps);
}
