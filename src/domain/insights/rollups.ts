/**
 * The rollup insights read a period from: each channel's published posts summed per UTC hour of publication,
 * the same for each label, and per quarter of a UTC hour for the weekday-and-hour cells and when to post.
 *
 * Rules kept here:
 * - an hour's figures are its published posts' (Herald's and live ones) by their latest counters, summed as
 *   counters.ts says: the numbers a recount of the posts gives, never an estimate;
 * - every change to a published post notes its hour (a trigger, migration 027); noted hours are recounted from
 *   their posts, one refresher at a time: by the sync that changed them, in its own unit of work (samples.ts); at
 *   startup, before anything is served (the upgrade that added the rollup noted every hour there was); by
 *   housekeeping; and before any read uses the rollup, which after a sync or a start finds none left, so a read
 *   pays only one look at an empty table;
 * - a period is read from the rollup only where that is exact: its whole UTC hours from the hours, the rest of its
 *   edges (a zone off the whole hour) from their posts; weekdays and hours from an hour where its channel's zone is
 *   a whole number of hours from UTC all through it, else from its quarters, each inside one local hour (every
 *   zone in use is a whole number of quarter hours from UTC); where a quarter is not, from the period's posts;
 * - quarters are kept per label too, without the scoring inputs, and recounted with their hour;
 * - each channel's and label's counters are kept per UTC day too, recounted from the day's hours whenever one of
 *   them is, so a year's counters are a few hundred rows; the other sums of a period are added up by the database;
 * - a quarter keeps each post's publish time, engagement and reach, by publish time then id, so when to post is
 *   told from the rollup exactly as from the posts;
 * - a period's top posts are looked for only in the hours whose best post could be among them: hours are opened
 *   best first, the newest first among equals, until none left could hold a post that beats the last one found.
 */
import type {
  CountedPostRecord,
  InsightDayRecord,
  InsightHourRecord,
  InsightQuarterWrite,
} from '../../db/repositories/insights.js';
import type { DomainDeps } from '../deps.js';
import { zoneOffset } from '../zoned-time.js';
import { engagementOf, reachOf } from './counters.js';

export const HOUR_MS = 3_600_000;
export const QUARTER_MS = 900_000;
const DAY_MS = 86_400_000;
export const HOURS_A_DAY = 24;
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
      for (const [channelId, noted] of byChannel) {
        const hours = [...noted].sort((a, b) => a - b);
        const found = await repos.insights.countedPosts(channelId, hours);
        if (!found) continue;
        const summed = sumByHour(channelId, found.posts);
        const byLabel = new Map<string, CountedPostRecord[]>();
        for (const post of found.posts)
          for (const id of post.labelIds) {
            const list = byLabel.get(id);
            if (list) list.push(post);
            else byLabel.set(id, [post]);
          }
        const labelHours = [...byLabel].flatMap(([labelId, posts]) =>
          sumByHour(channelId, posts).map((h) => ({ labelId, ...h })),
        );
        const quarters = sumByQuarter(channelId, found.posts);
        const labelQuarters = [...byLabel].flatMap(([labelId, posts]) =>
          sumByQuarter(channelId, posts).map(({ scored: _, ...q }) => ({ labelId, ...q })),
        );
        await repos.insights.writeHours(found.accountId, channelId, hours, summed, labelHours, quarters, labelQuarters);
        const days = [...new Set(hours.map((hour) => Math.floor(hour / HOURS_A_DAY)))];
        const dayHours = await repos.insights.hourCountersOfDays(channelId, days);
        await repos.insights.writeDays(found.accountId, channelId, days, sumByDay(dayHours));
        counted += summed.length;
      }
      await repos.insights.clearDirtyHours(marks.map((m) => m.id));
      return marks.length < REFRESH_BATCH;
    });
    if (done) return counted;
  }
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

/** Hours' counters (a channel's, or a label's) summed per UTC day, by channel, label and day. */
export function sumByDay(hours: readonly InsightDayRecord[]): InsightDayRecord[] {
  const days = new Map<string, InsightDayRecord>();
  for (const hour of hours) {
    const key = `${hour.labelId ?? ''}:${hour.day}`;
    let sum = days.get(key);
    if (!sum) days.set(key, (sum = { channelId: hour.channelId, labelId: hour.labelId, day: hour.day, counters: {} }));
    for (const [name, value] of Object.entries(hour.counters)) sum.counters[name] = (sum.counters[name] ?? 0) + value;
  }
  return [...days.values()];
}

/** Posts, given by publish time then id, summed per quarter of a UTC hour with each one's scoring inputs. */
export function sumByQuarter(
  channelId: string,
  posts: readonly { network: string; publishedAt: number; metrics: Record<string, number> }[],
): InsightQuarterWrite[] {
  const quarters = new Map<number, InsightQuarterWrite>();
  for (const post of posts) {
    const quarter = Math.floor(post.publishedAt / QUARTER_MS);
    let sum = quarters.get(quarter);
    if (!sum) quarters.set(quarter, (sum = { channelId, quarter, posts: 0, engagement: 0, reach: null, scored: [] }));
    const engaged = engagementOf(post.network, post.metrics);
    const seen = reachOf(post.network, post.metrics);
    sum.posts += 1;
    sum.engagement += engaged;
    if (seen !== null) sum.reach = (sum.reach ?? 0) + seen;
    sum.scored.push([post.publishedAt, engaged, seen]);
  }
  return [...quarters.values()].sort((a, b) => a.quarter - b.quarter);
}

/** A zone's offset through each UTC day (null where it changes that day), kept across reads. */
const dayOffsets = new Map<string, Map<number, number | null>>();
const MAX_DAYS_KEPT = 20_000;

/** A zone's offset all through a UTC day (`day`: epoch ms / 86,400,000), null where it changes that day. */
function dayOffsetOf(timezone: string): (day: number) => number | null {
  let days = dayOffsets.get(timezone);
  if (!days || days.size > MAX_DAYS_KEPT) dayOffsets.set(timezone, (days = new Map()));
  const known = days;
  return (day) => {
    let offset = known.get(day);
    if (offset === undefined) {
      const first = zoneOffset(timezone, day * DAY_MS);
      offset = first === zoneOffset(timezone, (day + 1) * DAY_MS - 1) ? first : null;
      known.set(day, offset);
    }
    return offset;
  };
}

/**
 * The weekday (0 Monday) and hour in `timezone` of instants, as localDateOf and localTimeOf tell them, with the
 * zone's offset looked up once a UTC day and kept (every instant of a day whose offset changes is looked up).
 */
export function zonedClock(timezone: string): (instant: number) => { weekday: number; hour: number; offset: number } {
  const dayOffset = dayOffsetOf(timezone);
  return (instant) => {
    const at = dayOffset(Math.floor(instant / DAY_MS)) ?? zoneOffset(timezone, instant);
    // Told from the local day's number (1 January 1970 was a Thursday), as weekday() would from its date.
    const local = instant + at;
    const localDay = Math.floor(local / DAY_MS);
    return {
      weekday: (((localDay + 3) % 7) + 7) % 7,
      hour: Math.floor((local - localDay * DAY_MS) / HOUR_MS),
      offset: at,
    };
  };
}

/** A span of UTC hours or quarters [from, to) through which a zone keeps one offset, or null: see offsetSpans. */
export interface OffsetSpan {
  from: number;
  to: number;
  offset: number | null;
}

/**
 * The runs of units (UTC hours or quarters of one, `unitMs` long) in [from, to) through which `timezone` keeps one
 * offset that is a whole number of units, each with that offset: every unit of a run then lies inside one local
 * unit, and its place in the local week follows from its place in the UTC week. Null where a unit is not inside one
 * local unit (an offset not a whole number of them, or changing within it).
 */
export function offsetSpans(timezone: string, unitMs: number, from: number, to: number): OffsetSpan[] {
  const dayOffset = dayOffsetOf(timezone);
  const perDay = DAY_MS / unitMs;
  const spans: OffsetSpan[] = [];
  for (let unit = from; unit < to; ) {
    const day = Math.floor(unit / perDay);
    const whole = dayOffset(day);
    let next = Math.min(to, (day + 1) * perDay);
    let offset: number | null;
    if (whole !== null) offset = whole % unitMs === 0 ? whole : null;
    else {
      next = unit + 1;
      const first = zoneOffset(timezone, unit * unitMs);
      offset = first % unitMs === 0 && zoneOffset(timezone, next * unitMs - 1) === first ? first : null;
    }
    const last = spans.at(-1);
    if (last && last.offset === offset) last.to = next;
    else spans.push({ from: unit, to: next, offset });
    unit = next;
  }
  return spans;
}

/**
 * The local weekday (0 Monday) and hour of the units at `at` of the UTC week (unit mod a week's count of them)
 * through a span of `offset` ms (a whole number of units): 1 January 1970, unit 0, was a Thursday.
 */
export function weekCellOf(at: number, offset: number, unitMs: number): { weekday: number; hour: number } {
  const perWeek = (7 * DAY_MS) / unitMs;
  const local = (((at + offset / unitMs) % perWeek) + perWeek) % perWeek;
  const hourOfWeek = Math.floor((local * unitMs) / HOUR_MS);
  return { weekday: (Math.floor(hourOfWeek / HOURS_A_DAY) + 3) % 7, hour: hourOfWeek % HOURS_A_DAY };
}
