/**
 * The rollup insights read a period from: each channel's published posts summed per UTC hour of publication.
 *
 * Rules kept here:
 * - an hour's figures are its published posts' (Herald's and live ones) by their latest counters, summed as
 *   counters.ts says: the numbers a recount of the posts gives, never an estimate;
 * - every change to a published post notes its hour (a trigger, migration 026); noted hours are recounted from
 *   their posts before any read uses the rollup, and by housekeeping, one refresher at a time;
 * - a period is read from the rollup only where that is exact: its edges on whole UTC hours, and every zone its
 *   weekdays and hours are told in a whole number of hours from UTC at each hour read; otherwise from its posts;
 * - a period's top posts are looked for only in the hours whose best post could be among them.
 */
import type { InsightHourRecord } from '../../db/repositories/insights.js';
import type { DomainDeps } from '../deps.js';
import { weekday, zoneOffset } from '../zoned-time.js';
import { engagementOf, reachOf } from './counters.js';

export const HOUR_MS = 3_600_000;
/** Noted hours recounted per transaction, so a refresh after a large sync never holds the database long. */
const REFRESH_BATCH = 2_000;

/** Recounts every hour noted as changed; the number recounted. */
export async function refreshRollups(deps: DomainDeps): Promise<number> {
  if (!(await deps.repos.insights.hasDirtyHours())) return 0;
  let counted = 0;
  for (;;) {
    const done = await deps.repos.inTransaction(async (repos) => {
      const marks = await repos.insights.claimDirtyHours(REFRESH_BATCH);
      const byChannel = new Map<string, Set<number>>();
      for (const mark of marks)
        byChannel.set(mark.channelId, (byChannel.get(mark.channelId) ?? new Set()).add(mark.hour));
      for (const [channelId, hours] of byChannel) {
        for (const [from, to] of runsOf([...hours])) {
          const found = await repos.insights.countedPosts(channelId, from, to);
          if (!found) continue;
          const summed = sumByHour(channelId, found.posts);
          await repos.insights.writeHours(found.accountId, channelId, from, to, summed);
          counted += summed.length;
        }
      }
      await repos.insights.clearDirtyHours(marks.map((m) => m.id));
      return marks.length < REFRESH_BATCH;
    });
    if (done) return counted;
  }
}

/** Sorted hours as runs [from, to) of consecutive hours. */
function runsOf(hours: number[]): [number, number][] {
  const runs: [number, number][] = [];
  for (const hour of hours.sort((a, b) => a - b)) {
    const last = runs.at(-1);
    if (last && last[1] === hour) last[1] = hour + 1;
    else runs.push([hour, hour + 1]);
  }
  return runs;
}

export function sumByHour(
  channelId: string,
  posts: readonly { network: string; publishedAt: number; metrics: Record<string, number> }[],
): InsightHourRecord[] {
  const hours = new Map<number, InsightHourRecord>();
  for (const post of posts) {
    const hour = Math.floor(post.publishedAt / HOUR_MS);
    let sum = hours.get(hour);
    if (!sum) {
      sum = {
        channelId,
        hour,
        posts: 0,
        engagement: 0,
        reach: null,
        engagedWithReach: 0,
        topEngagement: 0,
        counters: {},
      };
      hours.set(hour, sum);
    }
    const engaged = engagementOf(post.network, post.metrics);
    const seen = reachOf(post.network, post.metrics);
    sum.posts += 1;
    sum.engagement += engaged;
    sum.topEngagement = Math.max(sum.topEngagement, engaged);
    if (seen !== null) {
      sum.reach = (sum.reach ?? 0) + seen;
      if (seen > 0) sum.engagedWithReach += engaged;
    }
    for (const [name, value] of Object.entries(post.metrics)) sum.counters[name] = (sum.counters[name] ?? 0) + value;
  }
  return [...hours.values()].sort((a, b) => a.hour - b.hour);
}

/**
 * The weekday (0 Monday) and hour in `timezone` of each UTC hour asked, or undefined where the zone is not a
 * whole number of hours from UTC (the hour's posts could then fall in two of its hours). Offsets are looked up
 * once a day, and every hour of a day whose offset changes.
 */
export function zonedHours(timezone: string): (hour: number) => { weekday: number; hour: number } | undefined {
  const days = new Map<number, number | null>();
  return (hour) => {
    const instant = hour * HOUR_MS;
    const day = Math.floor(hour / 24);
    let offset = days.get(day);
    if (offset === undefined) {
      const first = zoneOffset(timezone, day * 24 * HOUR_MS);
      offset = first === zoneOffset(timezone, (day + 1) * 24 * HOUR_MS - 1) ? first : null;
      days.set(day, offset);
    }
    const at = offset ?? zoneOffset(timezone, instant);
    if (at % HOUR_MS !== 0) return undefined;
    const local = new Date(instant + at);
    const date = { year: local.getUTCFullYear(), month: local.getUTCMonth() + 1, day: local.getUTCDate() };
    return { weekday: weekday(date), hour: local.getUTCHours() };
  };
}

/**
 * The hours that hold the `count` posts with most engagement: every hour whose best post is at least the
 * count-th best hour's (a post outside them has less than `count` posts inside them have).
 */
export function topPostHours(hours: readonly InsightHourRecord[], count: number): InsightHourRecord[] {
  const best = [...hours].sort((a, b) => b.topEngagement - a.topEngagement);
  if (best.length <= count) return best;
  const floor = best[count - 1].topEngagement;
  return best.filter((h) => h.topEngagement >= floor);
}
