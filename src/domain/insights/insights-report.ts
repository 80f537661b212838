/**
 * Insights: what the account's published posts did (GET /insights, its CSV export, a post's curve, the MCP
 * resources and the weekly digest all read them here, so they never disagree).
 *
 * Rules kept here:
 * - everything is the caller's account's: channels, labels and workspaces asked for must be its own (an unknown
 *   one is a 400 naming it, never an empty answer that looks like no results), and every member may read them;
 * - a period's posts are the published ones (Herald's and live ones) that went out in it, counted by their
 *   latest counters (what compaction never changes); engagement and reach as counters.ts says;
 * - the change is measured against the previous period of the same length, in percent, none where that had none;
 * - weekdays and hours are in each post's channel's zone, where its audience saw it;
 * - a channel's audience at the start of a period is its last sample before it (or its first in it), at the end
 *   its last in it; networks that report no audience have none, never a zero.
 */
import type { components, operations } from '../../../generated/rest/openapi-types.js';
import type { ChannelRecord } from '../../db/repositories/channels.js';
import type {
  InsightDayRecord,
  InsightHourRecord,
  InsightLabelHourRecord,
  InsightPostRecord,
} from '../../db/repositories/insights.js';
import type { LabelRecord } from '../../db/repositories/labels.js';
import type { DomainDeps } from '../deps.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { findCapabilities } from '../networks/capabilities.js';
import type { Principal } from '../principal.js';
import { engagementOf, reachOf } from './counters.js';
import { parsePeriod, periodView, previousPeriod, type Period } from './insights-period.js';
import {
  HOUR_MS,
  HOURS_A_DAY,
  offsetSpans,
  QUARTER_MS,
  refreshRollups,
  sumByHour,
  weekCellOf,
  zonedClock,
} from './rollups.js';

export type InsightsReport = components['schemas']['InsightsReport'];
export type InsightTotals = components['schemas']['InsightTotals'];
export type InsightPost = components['schemas']['InsightPost'];
export type InsightsQuery = NonNullable<operations['getInsights']['parameters']['query']>;
export type PostInsights = operations['getPostInsights']['responses'][200]['content']['application/json']['data'];

const TOP_POSTS = 10;
/** Hours the search for a period's top posts asks of the database at a time, best first. */
const TOP_HOURS_PAGE = 50;

/** An hour of the rollup as the search for a period's top posts needs it. */
type HourTop = Pick<InsightHourRecord, 'channelId' | 'hour' | 'topEngagement'>;

/** The channels and labels a question is about, each checked to be the account's. */
export interface InsightsScope {
  accountId: string;
  channels: ChannelRecord[];
  labels: LabelRecord[];
  /** Only posts with one of these labels; null for all. */
  labelIds: string[] | null;
}

export async function insightsScope(
  deps: DomainDeps,
  principal: Principal,
  input: { workspaceId?: string; channelIds?: string[]; labelIds?: string[] },
): Promise<InsightsScope> {
  const accountId = principal.accountId;
  let channels = await deps.repos.channels.list(accountId);
  if (input.workspaceId !== undefined) {
    const workspaces = await deps.repos.accounts.listWorkspaces(accountId);
    if (!workspaces.some((w) => w.id === input.workspaceId)) {
      throw new ValidationError('Unknown workspace', [
        {
          path: 'workspaceId',
          message: `No workspace ${input.workspaceId} in this account; list them with GET /workspaces.`,
        },
      ]);
    }
    channels = channels.filter((c) => c.workspaceId === input.workspaceId);
  }
  const channelIds = [...new Set(input.channelIds ?? [])];
  if (channelIds.length > 0) {
    const unknown = channelIds.filter((id) => !channels.some((c) => c.id === id));
    if (unknown.length > 0) {
      throw new ValidationError('Unknown channels', [
        {
          path: 'channelIds',
          message:
            `No channel ${unknown.join(', ')} ${input.workspaceId ? 'in this workspace' : 'in this account'}; ` +
            'list them with GET /channels.',
        },
      ]);
    }
    channels = channels.filter((c) => channelIds.includes(c.id));
  }
  const labels = (await deps.repos.labels.list(accountId, input.workspaceId)).sort((a, b) =>
    a.name.localeCompare(b.name),
  );
  const labelIds = input.labelIds && input.labelIds.length > 0 ? [...new Set(input.labelIds)] : null;
  if (labelIds) {
    const unknown = labelIds.filter((id) => !labels.some((l) => l.id === id));
    if (unknown.length > 0) {
      throw new ValidationError('Unknown labels', [
        { path: 'labelIds', message: `No label ${unknown.join(', ')} here; list them with GET /labels.` },
      ]);
    }
  }
  return { accountId, channels, labels, labelIds };
}

function postsIn(deps: DomainDeps, scope: InsightsScope, period: Period): Promise<InsightPostRecord[]> {
  return deps.repos.insights.publishedPosts(
    scope.accountId,
    scope.channels.map((c) => c.id),
    period.start,
    period.end,
    scope.labelIds,
  );
}

export function totalsOf(posts: readonly InsightPostRecord[]): InsightTotals {
  let engagement = 0;
  let reach: number | null = null;
  let engagedWithReach = 0;
  const counters: Record<string, number> = {};
  for (const post of posts) {
    const engaged = engagementOf(post.network, post.metrics);
    const seen = reachOf(post.network, post.metrics);
    engagement += engaged;
    if (seen !== null) {
      reach = (reach ?? 0) + seen;
      if (seen > 0) engagedWithReach += engaged;
    }
    for (const [name, value] of Object.entries(post.metrics)) counters[name] = (counters[name] ?? 0) + value;
  }
  const engagementRate = reach ? Math.round((engagedWithReach / reach) * 10_000) / 10_000 : null;
  return { posts: posts.length, engagement, reach, engagementRate, counters };
}

function percentChange(now: number | null, before: number | null): number | null {
  if (now === null || before === null || before === 0) return null;
  return Math.round(((now - before) / before) * 1000) / 10;
}

function grouped<T, K>(items: readonly T[], keys: (item: T) => K[]): Map<K, T[]> {
  const groups = new Map<K, T[]>();
  for (const item of items) {
    for (const key of keys(item)) {
      const group = groups.get(key);
      if (group) group.push(item);
      else groups.set(key, [item]);
    }
  }
  return groups;
}

export function insightPost(post: InsightPostRecord, channel: ChannelRecord | undefined): InsightPost {
  return {
    postId: post.id,
    channelId: post.channelId,
    channelName: channel?.displayName ?? channel?.name ?? post.channelId,
    network: post.network,
    text: post.text,
    permalinkUrl: post.permalinkUrl,
    imageUrl: post.imageUrl,
    publishedAt: new Date(post.publishedAt).toISOString(),
    engagement: engagementOf(post.network, post.metrics),
    reach: reachOf(post.network, post.metrics),
    counters: post.metrics,
    labelIds: post.labelIds,
  };
}

/** The posts with the most engagement, the newest first among equals. */
export function topPosts(
  posts: readonly InsightPostRecord[],
  channels: readonly ChannelRecord[],
  count = TOP_POSTS,
): InsightPost[] {
  const byId = new Map(channels.map((c) => [c.id, c]));
  return posts
    .map((p) => insightPost(p, byId.get(p.channelId)))
    .sort(
      (a, b) =>
        b.engagement - a.engagement || b.publishedAt.localeCompare(a.publishedAt) || a.postId.localeCompare(b.postId),
    )
    .slice(0, count);
}

export async function insightsReport(
  deps: DomainDeps,
  principal: Principal,
  input: InsightsQuery,
): Promise<InsightsReport> {
  const scope = await insightsScope(deps, principal, input);
  const period = parsePeriod(input, deps.now());
  return reportFor(deps, scope, period);
}

/** What a period adds up to, grouped every way the report shows it. */
interface PeriodFigures {
  totals: InsightTotals;
  byNetwork: Map<string, InsightTotals>;
  byChannel: Map<string, InsightTotals>;
  byLabel: Map<string, InsightTotals>;
  cells: InsightsReport['byWeekdayHour'];
  topPosts: InsightPost[];
}

/** A period's figures from its posts, one by one. */
async function figuresFromPosts(deps: DomainDeps, scope: InsightsScope, period: Period): Promise<PeriodFigures> {
  const posts = await postsIn(deps, scope, period);
  const zones = new Map(scope.channels.map((c) => [c.id, c.timezone]));
  const cells = new Map<string, InsightsReport['byWeekdayHour'][number]>();
  const clocks = new Map<string, ReturnType<typeof zonedClock>>();
  for (const post of posts) {
    const zone = zones.get(post.channelId) ?? 'UTC';
    let clock = clocks.get(zone);
    if (!clock) clocks.set(zone, (clock = zonedClock(zone)));
    const { weekday: day, hour } = clock(post.publishedAt);
    const cell = cells.get(`${day}:${hour}`) ?? { weekday: day, hour, posts: 0, engagement: 0, reach: null };
    const seen = reachOf(post.network, post.metrics);
    cell.posts += 1;
    cell.engagement += engagementOf(post.network, post.metrics);
    if (seen !== null) cell.reach = (cell.reach ?? 0) + seen;
    cells.set(`${day}:${hour}`, cell);
  }
  const totalsBy = (keys: (p: InsightPostRecord) => string[]) =>
    new Map([...grouped(posts, keys)].map(([k, list]) => [k, totalsOf(list)]));
  return {
    totals: totalsOf(posts),
    byNetwork: totalsBy((p) => [p.network]),
    byChannel: totalsBy((p) => [p.channelId]),
    byLabel: totalsBy((p) => p.labelIds),
    cells: [...cells.values()],
    topPosts: topPosts(posts, scope.channels),
  };
}

/**
 * A period's figures from the rollup (rollups.ts), the same a count of its posts gives: its whole UTC hours' sums
 * and weekday-and-hour cells added up by the database from the hours (from the quarters where the channel's zone
 * is off the whole hour), their counters from the days and the hours beside them, the part of an hour at each edge
 * from its posts; narrowed to one label, from that label's hours, quarters and days. Undefined where the rollup
 * cannot tell them exactly: several labels (a post carrying two counts once), a quarter not inside one local hour.
 * With `totalsOnly` (the period before, whose totals alone are shown) nothing else is counted.
 */
async function figuresFromRollup(
  deps: DomainDeps,
  scope: InsightsScope,
  period: Period,
  totalsOnly: boolean,
): Promise<PeriodFigures | undefined> {
  const firstHour = Math.ceil(period.start / HOUR_MS);
  const lastHour = Math.floor(period.end / HOUR_MS);
  if ((scope.labelIds && scope.labelIds.length > 1) || firstHour >= lastHour) return undefined;
  const only = scope.labelIds?.[0] ?? null;
  const onlyIds = only === null ? null : [only];
  const insights = deps.repos.insights;
  const { accountId } = scope;
  const channelIds = scope.channels.map((c) => c.id);
  const channels = new Map(scope.channels.map((c) => [c.id, c]));
  const edgePosts = [
    ...(await edgeOf(deps, scope, period.start, firstHour * HOUR_MS)),
    ...(await edgeOf(deps, scope, lastHour * HOUR_MS, period.end)),
  ];
  const edgeHours: InsightHourRecord[] = [];
  const edgeLabelHours: InsightLabelHourRecord[] = [];
  for (const [channelId, posts] of grouped(edgePosts, (p) => [p.channelId])) {
    edgeHours.push(...sumByHour(channelId, posts));
    for (const [labelId, labelled] of grouped(posts, (p) => p.labelIds))
      edgeLabelHours.push(...sumByHour(channelId, labelled).map((h) => ({ labelId, ...h })));
  }
  const sumsOf = (sums: Map<string, HourSums>, key: string) => {
    let found = sums.get(key);
    if (!found) sums.set(key, (found = new HourSums()));
    return found;
  };
  const byChannel = new Map<string, HourSums>();
  for (const sum of await insights.hourSums(accountId, channelIds, firstHour, lastHour, onlyIds))
    sumsOf(byChannel, sum.channelId).addSums(sum);
  for (const day of await countersOf(deps, accountId, channelIds, firstHour, lastHour, onlyIds))
    sumsOf(byChannel, day.channelId).addCounters(day.counters);
  for (const sum of edgeHours) sumsOf(byChannel, sum.channelId).add(sum);
  const totals = new HourSums();
  const byNetwork = new Map<string, HourSums>();
  for (const [channelId, sums] of byChannel) {
    totals.merge(sums);
    sumsOf(byNetwork, channels.get(channelId)?.network ?? '').merge(sums);
  }
  const summed = (sums: Map<string, HourSums>) => new Map([...sums].map(([k, sum]) => [k, sum.totals()]));
  if (totalsOnly) {
    const none = new Map<string, InsightTotals>();
    return { totals: totals.totals(), byNetwork: none, byChannel: none, byLabel: none, cells: [], topPosts: [] };
  }

  const cells = new Map<string, InsightsReport['byWeekdayHour'][number]>();
  const count = (at: { weekday: number; hour: number }, posts: number, engagement: number, reach: number | null) => {
    const key = `${at.weekday}:${at.hour}`;
    const cell = cells.get(key) ?? { weekday: at.weekday, hour: at.hour, posts: 0, engagement: 0, reach: null };
    cell.posts += posts;
    cell.engagement += engagement;
    if (reach !== null) cell.reach = (cell.reach ?? 0) + reach;
    cells.set(key, cell);
  };
  const perHour = HOUR_MS / QUARTER_MS;
  for (const [zone, inZone] of grouped(scope.channels, (c) => [c.timezone])) {
    const ids = inZone.map((c) => c.id);
    for (const span of offsetSpans(zone, HOUR_MS, firstHour, lastHour)) {
      if (span.offset !== null) {
        for (const sum of await insights.weekSums(accountId, ids, 'hour', span.from, span.to, only))
          count(weekCellOf(sum.at, span.offset, HOUR_MS), sum.posts, sum.engagement, sum.reach);
        continue;
      }
      for (const part of offsetSpans(zone, QUARTER_MS, span.from * perHour, span.to * perHour)) {
        const sums = await insights.weekSums(accountId, ids, 'quarter', part.from, part.to, only);
        if (part.offset === null) {
          if (sums.length > 0) return undefined;
          continue;
        }
        for (const sum of sums)
          count(weekCellOf(sum.at, part.offset, QUARTER_MS), sum.posts, sum.engagement, sum.reach);
      }
    }
  }
  const clocks = new Map<string, ReturnType<typeof zonedClock>>();
  for (const post of edgePosts) {
    const zone = channels.get(post.channelId)?.timezone ?? 'UTC';
    let clock = clocks.get(zone);
    if (!clock) clocks.set(zone, (clock = zonedClock(zone)));
    count(clock(post.publishedAt), 1, engagementOf(post.network, post.metrics), reachOf(post.network, post.metrics));
  }

  const byLabel = new Map<string, HourSums>();
  // Narrowed to one label, every hour and edge post counted is that label's.
  if (only) byLabel.set(only, totals);
  else {
    const shownLabels = scope.labels.map((l) => l.id);
    for (const sum of await insights.hourSums(accountId, channelIds, firstHour, lastHour, shownLabels))
      sumsOf(byLabel, sum.labelId ?? '').addSums(sum);
    for (const day of await countersOf(deps, accountId, channelIds, firstHour, lastHour, shownLabels))
      sumsOf(byLabel, day.labelId ?? '').addCounters(day.counters);
    for (const sum of edgeLabelHours) if (shownLabels.includes(sum.labelId)) sumsOf(byLabel, sum.labelId).add(sum);
  }
  return {
    totals: totals.totals(),
    byNetwork: summed(byNetwork),
    byChannel: summed(byChannel),
    byLabel: summed(byLabel),
    cells: [...cells.values()],
    topPosts: await topPostsOfHours(deps, scope, period, firstHour, lastHour, only, edgeHours),
  };
}

/**
 * The counters of these channels' whole hours [firstHour, lastHour) (with labelIds, of those labels' hours): whole
 * UTC days from the day rollup, the hours beside them from the hours; one record a day or hour and channel (label).
 */
async function countersOf(
  deps: DomainDeps,
  accountId: string,
  channelIds: readonly string[],
  firstHour: number,
  lastHour: number,
  labelIds: readonly string[] | null,
): Promise<InsightDayRecord[]> {
  const insights = deps.repos.insights;
  const hourly = async (from: number, to: number): Promise<InsightDayRecord[]> => {
    if (from >= to) return [];
    const hours: (InsightHourRecord & { labelId?: string })[] = labelIds
      ? await insights.labelHours(accountId, labelIds, channelIds, from, to)
      : await insights.hours(accountId, channelIds, from, to);
    return hours.map((h) => ({
      channelId: h.channelId,
      labelId: h.labelId ?? null,
      day: Math.floor(h.hour / HOURS_A_DAY),
      counters: h.counters,
    }));
  };
  const firstDay = Math.ceil(firstHour / HOURS_A_DAY);
  const lastDay = Math.floor(lastHour / HOURS_A_DAY);
  if (firstDay >= lastDay) return hourly(firstHour, lastHour);
  return [
    ...(await hourly(firstHour, firstDay * HOURS_A_DAY)),
    ...(await insights.days(accountId, channelIds, firstDay, lastDay, labelIds)),
    ...(await hourly(lastDay * HOURS_A_DAY, lastHour)),
  ];
}

/** The published posts of the scope in [from, to), the part of an hour at a period's edge; none when empty. */
async function edgeOf(deps: DomainDeps, scope: InsightsScope, from: number, to: number): Promise<InsightPostRecord[]> {
  if (from >= to) return [];
  const channelIds = scope.channels.map((c) => c.id);
  return deps.repos.insights.publishedPosts(scope.accountId, channelIds, from, to, scope.labelIds);
}

/** Hours by the most engagement one of their posts has, the newest first among equals. */
function byTop(a: HourTop, b: HourTop): number {
  return b.topEngagement - a.topEngagement || b.hour - a.hour || a.channelId.localeCompare(b.channelId);
}

/**
 * The period's top posts, reading only hours that can hold them: best hour first (the newest among equals), the
 * whole hours asked of the database a page at a time and the edges' hours merged in, until the last of the top
 * found beats any post the next hour could hold; an hour at an edge only within the period.
 */
async function topPostsOfHours(
  deps: DomainDeps,
  scope: InsightsScope,
  period: Period,
  firstHour: number,
  lastHour: number,
  only: string | null,
  edgeHours: readonly HourTop[],
): Promise<InsightPost[]> {
  const channelIds = scope.channels.map((c) => c.id);
  const insights = deps.repos.insights;
  async function* ordered(): AsyncGenerator<HourTop> {
    const edges = [...edgeHours].sort(byTop);
    let e = 0;
    for (let offset = 0; ; offset += TOP_HOURS_PAGE) {
      const page = await insights.topHours(
        scope.accountId,
        channelIds,
        firstHour,
        lastHour,
        only,
        offset,
        TOP_HOURS_PAGE,
      );
      for (const hour of page) {
        while (e < edges.length && byTop(edges[e], hour) <= 0) yield edges[e++];
        yield hour;
      }
      if (page.length < TOP_HOURS_PAGE) break;
    }
    yield* edges.slice(e);
  }
  const found: InsightPostRecord[] = [];
  let top: InsightPost[] = [];
  let batch: HourTop[] = [];
  const read = async () => {
    const ranges = batch.map((h) => ({
      channelId: h.channelId,
      from: Math.max(h.hour * HOUR_MS, period.start),
      to: Math.min((h.hour + 1) * HOUR_MS, period.end),
    }));
    batch = [];
    found.push(...(await insights.publishedInRanges(scope.accountId, ranges, scope.labelIds)));
    top = topPosts(found, scope.channels);
  };
  for await (const next of ordered()) {
    if (batch.length === 0) {
      const last = top.length === TOP_POSTS ? top[TOP_POSTS - 1] : undefined;
      if (
        last &&
        (last.engagement > next.topEngagement ||
          (last.engagement === next.topEngagement && Date.parse(last.publishedAt) >= (next.hour + 1) * HOUR_MS))
      )
        return top;
    }
    batch.push(next);
    if (batch.length === TOP_POSTS) await read();
  }
  if (batch.length > 0) await read();
  return top;
}

/** totalsOf for hours of the rollup: the same sums, taken over posts already summed by the hour. */
class HourSums {
  private posts = 0;
  private engagement = 0;
  private reach: number | null = null;
  private engagedWithReach = 0;
  private readonly counters: Record<string, number> = {};

  add(sum: InsightHourRecord): void {
    this.addSums(sum);
    this.addCounters(sum.counters);
  }

  addSums(sum: Pick<InsightHourRecord, 'posts' | 'engagement' | 'reach' | 'engagedWithReach'>): void {
    this.posts += sum.posts;
    this.engagement += sum.engagement;
    if (sum.reach !== null) this.reach = (this.reach ?? 0) + sum.reach;
    this.engagedWithReach += sum.engagedWithReach;
  }

  addCounters(counters: Record<string, number>): void {
    for (const [name, value] of Object.entries(counters)) this.counters[name] = (this.counters[name] ?? 0) + value;
  }

  merge(other: HourSums): void {
    const { posts, engagement, reach, engagedWithReach, counters } = other;
    this.addSums({ posts, engagement, reach, engagedWithReach });
    this.addCounters(counters);
  }

  totals(): InsightTotals {
    const { posts, engagement, reach, engagedWithReach } = this;
    const engagementRate = reach ? Math.round((engagedWithReach / reach) * 10_000) / 10_000 : null;
    return { posts, engagement, reach, engagementRate, counters: { ...this.counters } };
  }
}

async function periodFigures(
  deps: DomainDeps,
  scope: InsightsScope,
  period: Period,
  totalsOnly = false,
): Promise<PeriodFigures> {
  return (await figuresFromRollup(deps, scope, period, totalsOnly)) ?? figuresFromPosts(deps, scope, period);
}

export async function reportFor(deps: DomainDeps, scope: InsightsScope, period: Period): Promise<InsightsReport> {
  const before = previousPeriod(period);
  await refreshRollups(deps);
  const figures = await periodFigures(deps, scope, period);
  const totals = figures.totals;
  const previousTotals = (await periodFigures(deps, scope, before, true)).totals;
  const channelIds = scope.channels.map((c) => c.id);
  const audience = await deps.repos.insights.audienceSamples(scope.accountId, channelIds, period.start, period.end);
  const audienceBefore = new Map(
    (await deps.repos.insights.audienceBefore(scope.accountId, channelIds, period.start)).map((s) => [
      s.channelId,
      s.followers,
    ]),
  );
  const audienceOf = grouped(audience, (s) => [s.channelId]);
  const shownLabels = scope.labels.filter((l) => !scope.labelIds || scope.labelIds.includes(l.id));
  return {
    period: periodView(period),
    previousPeriod: periodView(before),
    timezone: period.timezone,
    totals,
    previousTotals,
    change: {
      posts: percentChange(totals.posts, previousTotals.posts),
      engagement: percentChange(totals.engagement, previousTotals.engagement),
      reach: percentChange(totals.reach, previousTotals.reach),
    },
    byNetwork: [...figures.byNetwork]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([network, networkTotals]) => ({
        network,
        displayName: findCapabilities(network)?.displayName ?? network,
        totals: networkTotals,
      })),
    byChannel: scope.channels.map((channel) => {
      const samples = audienceOf.get(channel.id) ?? [];
      return {
        channelId: channel.id,
        name: channel.displayName ?? channel.name,
        network: channel.network,
        timezone: channel.timezone,
        totals: figures.byChannel.get(channel.id) ?? totalsOf([]),
        audienceStart: audienceBefore.get(channel.id) ?? samples[0]?.followers ?? null,
        audienceEnd: samples.at(-1)?.followers ?? null,
      };
    }),
    byLabel: shownLabels.map((label) => ({
      labelId: label.id,
      name: label.name,
      color: label.color,
      totals: figures.byLabel.get(label.id) ?? totalsOf([]),
    })),
    byWeekdayHour: figures.cells.sort((a, b) => a.weekday - b.weekday || a.hour - b.hour),
    topPosts: figures.topPosts,
    audience: [...audienceOf].map(([channelId, samples]) => ({
      channelId,
      points: samples.map((s) => ({ at: new Date(s.sampledAt).toISOString(), followers: s.followers })),
    })),
  };
}

/** Posts read per page and channel of the CSV export, and the text sent at a time. */
const CSV_PAGE = 500;
const CSV_CHUNK = 64 * 1024;

/**
 * The period's posts as CSV (RFC 4180): one row each, by publish time then id, a column for every counter any of
 * them has. Made page by page as it is sent (keyset pages), so its first line leaves at once and memory holds a page
 * whatever the period; the counters' columns, needed first, come from the rollup's hours and the edges' posts.
 */
export async function insightsCsv(
  deps: DomainDeps,
  principal: Principal,
  input: InsightsQuery,
): Promise<AsyncIterable<string>> {
  const scope = await insightsScope(deps, principal, input);
  const period = parsePeriod(input, deps.now());
  await refreshRollups(deps);
  const counterNames = await counterNamesIn(deps, scope, period);
  const labelNames = new Map(scope.labels.map((l) => [l.id, l.name]));
  const channels = new Map(scope.channels.map((c) => [c.id, c]));
  const header = [
    'postId',
    'channelId',
    'channel',
    'network',
    'publishedAt',
    'permalinkUrl',
    'labels',
    'text',
    'engagement',
    'reach',
    ...counterNames,
  ];
  const line = (row: string[]) => `${row.map(csvField).join(',')}\r\n`;
  return (async function* () {
    yield line(header);
    let chunk = '';
    for await (const record of publishedInOrder(deps, scope, period)) {
      const p = insightPost(record, channels.get(record.channelId));
      chunk += line([
        p.postId,
        p.channelId,
        p.channelName,
        p.network,
        p.publishedAt,
        p.permalinkUrl ?? '',
        p.labelIds.map((id) => labelNames.get(id) ?? id).join('; '),
        p.text,
        String(p.engagement),
        p.reach === null ? '' : String(p.reach),
        ...counterNames.map((n) => (p.counters[n] === undefined ? '' : String(p.counters[n]))),
      ]);
      if (chunk.length >= CSV_CHUNK) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  })();
}

/**
 * The scope's published posts of a period by publish time then id, read a page at a time per channel and merged:
 * each channel's page is a range of its (channel, publish time) index in order, where one query over several
 * channels would sort the whole rest of the period for every page.
 */
async function* publishedInOrder(
  deps: DomainDeps,
  scope: InsightsScope,
  period: Period,
): AsyncGenerator<InsightPostRecord> {
  const streams = scope.channels.map((c) => ({
    channelId: c.id,
    page: [] as InsightPostRecord[],
    after: null as { publishedAt: number; id: string } | null,
    done: false,
  }));
  for (;;) {
    let next: (typeof streams)[number] | undefined;
    for (const stream of streams) {
      if (stream.page.length === 0 && !stream.done) {
        stream.page = await deps.repos.insights.publishedPage(
          scope.accountId,
          [stream.channelId],
          period.start,
          period.end,
          scope.labelIds,
          stream.after,
          CSV_PAGE,
        );
        stream.done = stream.page.length < CSV_PAGE;
        const last = stream.page.at(-1);
        if (last) stream.after = { publishedAt: last.publishedAt, id: last.id };
      }
      const head = stream.page[0];
      const best = next?.page[0];
      const sooner = head && best && (head.publishedAt - best.publishedAt || (head.id < best.id ? -1 : 1)) < 0;
      if (head && (!best || sooner)) next = stream;
    }
    if (!next) return;
    yield next.page.shift()!;
  }
}

/**
 * The names of every counter the period's posts have, sorted: the union of the rollup's days and hours (or, for a
 * label filter, its labels') inside the period and of the edges' posts.
 */
async function counterNamesIn(deps: DomainDeps, scope: InsightsScope, period: Period): Promise<string[]> {
  const firstHour = Math.ceil(period.start / HOUR_MS);
  const lastHour = Math.floor(period.end / HOUR_MS);
  const names = new Set<string>();
  const add = (counters: Record<string, number>) => {
    for (const name of Object.keys(counters)) names.add(name);
  };
  if (firstHour >= lastHour) {
    for (const post of await edgeOf(deps, scope, period.start, period.end)) add(post.metrics);
    return [...names].sort();
  }
  const channelIds = scope.channels.map((c) => c.id);
  for (const summed of await countersOf(deps, scope.accountId, channelIds, firstHour, lastHour, scope.labelIds))
    add(summed.counters);
  for (const post of [
    ...(await edgeOf(deps, scope, period.start, firstHour * HOUR_MS)),
    ...(await edgeOf(deps, scope, lastHour * HOUR_MS, period.end)),
  ])
    add(post.metrics);
  return [...names].sort();
}

/** A field quoted where it must be, and never read as a formula by a spreadsheet (a leading =, +, - or @). */
function csvField(value: string): string {
  const safe = /^[=+\-@\t\r]/.test(value) && !/^-?\d/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export async function postInsights(deps: DomainDeps, principal: Principal, postId: string): Promise<PostInsights> {
  const post = await deps.repos.posts.get(principal.accountId, postId);
  const channel = post && (await deps.repos.channels.get(principal.accountId, post.channelId));
  if (!post || !channel) throw new NotFoundError(`No post ${postId} in this account.`);
  const network = channel.network;
  const samples = await deps.repos.insights.postSamples(principal.accountId, post.id);
  const counters = post.metrics ?? {};
  return {
    postId: post.id,
    channelId: post.channelId,
    network,
    publishedAt: post.publishedAt === null ? null : new Date(post.publishedAt).toISOString(),
    engagement: engagementOf(network, counters),
    reach: reachOf(network, counters),
    counters,
    samples: samples.map((s) => ({
      at: new Date(s.sampledAt).toISOString(),
      engagement: engagementOf(network, s.counters),
      reach: reachOf(network, s.counters),
      counters: s.counters,
    })),
  };
}
