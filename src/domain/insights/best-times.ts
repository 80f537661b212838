/**
 * When to post: the weekday-and-hour windows where a channel's own posts did best.
 *
 * Rules kept here:
 * - a post is scored by its engagement per impression or view where the network reports reach, else per follower
 *   the channel had when it went out, else per post; the basis is the one most of the channel's posts allow, and
 *   posts it cannot score are left out;
 * - a window is a weekday and an hour in the channel's zone; its score is the mean of its posts' scores and its lift
 *   that score over the channel's typical post's (the median: two lucky posts do not make every other window
 *   look poor);
 * - nothing is claimed from too little: a channel with fewer than MIN_POSTS scored posts gets no windows, and a
 *   window with fewer than MIN_WINDOW_POSTS posts is never offered; only windows that beat the typical post are,
 *   the best first, at most MAX_WINDOWS;
 * - each window says how many posts it rests on and how far to trust it, in plain words;
 * - the posts are read from the rollup's quarters (rollups.ts), which keep what a post's score needs, so the
 *   answer is the one the posts themselves give.
 */
import type { components } from '../../../generated/rest/openapi-types.js';
import type { ScoredPost } from '../../db/repositories/insights.js';
import type { DomainDeps } from '../deps.js';
import { NotFoundError } from '../errors.js';
import type { Principal } from '../principal.js';
import { engagementOf, reachOf } from './counters.js';
import { QUARTER_MS, refreshRollups, zonedClock } from './rollups.js';

export type BestTimes = components['schemas']['BestTimes'];
type Window = BestTimes['windows'][number];

export const MIN_POSTS = 10;
export const MIN_WINDOW_POSTS = 3;
const MAX_WINDOWS = 5;
const DEFAULT_WEEKS = 12;
const WEEK_MS = 7 * 86_400_000;

/** A published post as the rule sees it. */
export interface ScoredPostInput {
  publishedAt: number;
  engagement: number;
  reach: number | null;
  /** The channel's followers when it went out, where known. */
  followers: number | null;
}

const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

function confidenceOf(posts: number): { confidence: Window['confidence']; note: string } {
  if (posts >= 10) return { confidence: 'high', note: `From ${posts} posts: a steady pattern.` };
  if (posts >= 5) return { confidence: 'medium', note: `From ${posts} posts: a fair guide, worth trying again.` };
  return { confidence: 'low', note: `From only ${posts} posts: a hint, not a rule.` };
}

/**
 * Posts as the rule reads them, a column a field (NaN where a post has no reach, or its followers are unknown):
 * 32 bytes a post, where an object each would hold a channel's twelve weeks many times over. bestWindows uses them
 * as its scratch space too, so a read allocates nothing in proportion to its posts once columns are kept for reuse.
 */
export class ScoredColumns {
  size = 0;
  publishedAt = new Float64Array(1024);
  engagement = new Float64Array(1024);
  reach = new Float64Array(1024);
  followers = new Float64Array(1024);
  private sorted = new Float64Array(0);

  static of(posts: Iterable<ScoredPostInput>): ScoredColumns {
    const columns = new ScoredColumns();
    for (const p of posts) columns.push(p.publishedAt, p.engagement, p.reach, p.followers);
    return columns;
  }

  push(publishedAt: number, engagement: number, reach: number | null, followers: number | null): void {
    if (this.size === this.publishedAt.length) {
      const grown = (column: Float64Array) => {
        const larger = new Float64Array(column.length * 2);
        larger.set(column);
        return larger;
      };
      [this.publishedAt, this.engagement] = [grown(this.publishedAt), grown(this.engagement)];
      [this.reach, this.followers] = [grown(this.reach), grown(this.followers)];
    }
    this.publishedAt[this.size] = publishedAt;
    this.engagement[this.size] = engagement;
    this.reach[this.size] = reach ?? Number.NaN;
    this.followers[this.size++] = followers ?? Number.NaN;
  }

  /** The first `count` of `values` sorted, in a column kept with these for the purpose. */
  sortedCopy(values: Float64Array, count: number): Float64Array {
    if (this.sorted.length < count) this.sorted = new Float64Array(this.publishedAt.length);
    const copy = this.sorted.subarray(0, count);
    copy.set(values.subarray(0, count));
    // A typed array sorts numbers by value, several times faster than a comparator.
    return copy.sort();
  }
}

/** Columns kept between reads for the next (as many as run at once, up to this many). */
const KEPT_COLUMNS = 2;
const keptColumns: ScoredColumns[] = [];

export function bestWindows(
  posts: Iterable<ScoredPostInput> | ScoredColumns,
  timezone: string,
  weeks = DEFAULT_WEEKS,
): Omit<BestTimes, 'channelId'> {
  const columns = posts instanceof ScoredColumns ? posts : ScoredColumns.of(posts);
  const { size, publishedAt, engagement, reach, followers } = columns;
  // Counted in typed arrays, not objects per post: a channel's twelve weeks can be a hundred thousand posts.
  let withReach = 0;
  let withFollowers = 0;
  for (let i = 0; i < size; i++) {
    if (reach[i] > 0) withReach++;
    if (followers[i] > 0) withFollowers++;
  }
  const basis: BestTimes['basis'] =
    withReach * 2 >= size && withReach > 0
      ? 'impressions'
      : withFollowers * 2 >= size && withFollowers > 0
        ? 'followers'
        : 'posts';
  const considered = basis === 'impressions' ? withReach : basis === 'followers' ? withFollowers : size;
  // The posts considered and their scores, written over the columns' first `considered` places (never ahead of
  // what is still to be read): publish times in publishedAt, scores in engagement.
  const [ats, scores] = [publishedAt, engagement];
  let next = 0;
  for (let i = 0; i < size; i++) {
    const per = basis === 'impressions' ? reach[i] : basis === 'followers' ? followers[i] : 1;
    // NaN (none reported or known) is not above 0 either.
    if (!(per > 0)) continue;
    ats[next] = publishedAt[i];
    scores[next++] = basis === 'posts' ? engagement[i] : engagement[i] / per;
  }
  const measure = {
    impressions: 'engagement per impression or view',
    followers: 'engagement per follower',
    posts: 'engagement per post',
  }[basis];
  const base = { timezone, basis, postsConsidered: considered, minimumPosts: MIN_WINDOW_POSTS };
  if (considered < MIN_POSTS) {
    return {
      ...base,
      windows: [],
      note:
        (considered === 0
          ? `No published posts to learn from in the last ${weeks} weeks yet; `
          : `Only ${considered} published post${considered === 1 ? '' : 's'} to learn from ` +
            `in the last ${weeks} weeks; `) + `Herald suggests times once there are at least ${MIN_POSTS}.`,
    };
  }
  const sorted = columns.sortedCopy(scores, considered);
  const middle = Math.floor(sorted.length / 2);
  const typical = sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  // Per weekday and hour (weekday * 24 + hour): its posts and their scores summed in the posts' order.
  const counts = new Int32Array(7 * 24);
  const sums = new Float64Array(7 * 24);
  const clock = zonedClock(timezone);
  for (let i = 0; i < considered; i++) {
    const { weekday: day, hour } = clock(ats[i]);
    counts[day * 24 + hour] += 1;
    sums[day * 24 + hour] += scores[i];
  }
  const windows = [...counts.keys()]
    .filter((cell) => counts[cell] >= MIN_WINDOW_POSTS)
    .map((cell) => {
      const score = sums[cell] / counts[cell];
      return {
        weekday: Math.floor(cell / 24),
        hour: cell % 24,
        posts: counts[cell],
        score: round(score),
        lift: typical > 0 ? round(score / typical) : 0,
        ...confidenceOf(counts[cell]),
      };
    })
    .filter((w) => w.lift > 1)
    .sort((a, b) => b.score - a.score || b.posts - a.posts || a.weekday - b.weekday || a.hour - b.hour)
    .slice(0, MAX_WINDOWS);
  const found =
    windows.length === 0
      ? ` No weekday and hour with ${MIN_WINDOW_POSTS} or more posts did better than the channel's typical post yet.`
      : ` Best: ${DAYS[windows[0].weekday]}s at ${String(windows[0].hour).padStart(2, '0')}:00 (${timezone}).`;
  return {
    ...base,
    windows,
    note: `From ${considered} posts of the last ${weeks} weeks, measured as ${measure}.${found}`,
  };
}

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}

export async function bestTimes(
  deps: DomainDeps,
  principal: Principal,
  channelId: string,
  input: { weeks?: number },
): Promise<BestTimes> {
  const channel = await deps.repos.channels.get(principal.accountId, channelId);
  if (!channel) throw new NotFoundError(`No channel ${channelId} in this account; list them with GET /channels.`);
  return { channelId: channel.id, ...(await channelBestWindows(deps, channel, input.weeks ?? DEFAULT_WEEKS)) };
}

export async function channelBestWindows(
  deps: DomainDeps,
  channel: { id: string; accountId: string; timezone: string },
  weeks = DEFAULT_WEEKS,
): Promise<Omit<BestTimes, 'channelId'>> {
  const end = deps.now();
  const start = end - weeks * WEEK_MS;
  await refreshRollups(deps);
  const audience = [
    ...(await deps.repos.insights.audienceBefore(channel.accountId, [channel.id], start)),
    ...(await deps.repos.insights.audienceSamples(channel.accountId, [channel.id], start, end)),
  ];
  // The last sample at or before the instant (by halves: the samples are oldest first), else the first of all.
  const followersAt = (at: number): number | null => {
    let [low, high] = [0, audience.length];
    while (low < high) {
      const middle = (low + high) >> 1;
      if (audience[middle].sampledAt <= at) low = middle + 1;
      else high = middle;
    }
    return (audience[low - 1] ?? audience[0])?.followers ?? null;
  };
  // Columns of an earlier read filled again: fresh ones each read (megabytes for a busy channel) were freed by the
  // collector only after many reads, and the process's memory grew by tens of MiB meanwhile.
  const posts = keptColumns.pop() ?? new ScoredColumns();
  posts.size = 0;
  try {
    await scoredPostsIn(deps, channel, start, end, ([publishedAt, engagement, reach]) =>
      posts.push(publishedAt, engagement, reach, followersAt(publishedAt)),
    );
    return bestWindows(posts, channel.timezone, weeks);
  } finally {
    if (keptColumns.length < KEPT_COLUMNS) keptColumns.push(posts);
  }
}

/**
 * The channel's published posts in [start, end) as the rule scores them, oldest first, each given to `add`: the
 * whole quarters from the rollup, which keeps each post's publish time, engagement and reach, a page of quarters at
 * a time, and the parts of a quarter at the edges from the posts.
 */
async function scoredPostsIn(
  deps: DomainDeps,
  channel: { id: string; accountId: string },
  start: number,
  end: number,
  add: (post: ScoredPost) => void,
): Promise<void> {
  const fromPosts = async (from: number, to: number): Promise<void> => {
    if (from >= to) return;
    for (const p of await deps.repos.insights.publishedPosts(channel.accountId, [channel.id], from, to, null))
      add([p.publishedAt, engagementOf(p.network, p.metrics), reachOf(p.network, p.metrics)]);
  };
  const first = Math.ceil(start / QUARTER_MS);
  const last = Math.floor(end / QUARTER_MS);
  if (first >= last) return fromPosts(start, end);
  await fromPosts(start, first * QUARTER_MS);
  for await (const page of deps.repos.insights.scoredPostPages(channel.accountId, channel.id, first, last))
    for (const post of page) add(post);
  await fromPosts(last * QUARTER_MS, end);
}
