/**
 * The team's own calendar, for the app and for API users (GET /calendar): unlike a shared calendar it shows
 * everything of the account (failed and unconfirmed posts too), with post ids, and lets a scheduled post be moved.
 *
 * Rules kept here:
 * - the period is a month, week or list of days around a date in the person's time zone (calendar-periods.ts);
 *   a date outside 2000-2100 is refused (calendar-dates.ts);
 * - the channels asked for must be the account's; none asked for means all of them;
 * - live posts only when asked for (the all-content view);
 * - only a scheduled post (not live, not published, not in flight) can be moved; moving it to another day keeps
 *   its wall-clock time in the person's time zone unless a time is given; a move to an exact instant (an undo)
 *   takes that instant;
 * - a move is an update (update-post.ts): the post leaves its queue slot, approval holds apply as on any update.
 */
import type { components, operations } from '../../../generated/rest/openapi-types.js';
import type { DomainDeps } from '../deps.js';
import type { PostStatus } from '../../db/repositories/posts.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { riskView } from '../posts/post-view.js';
import type { Principal } from '../principal.js';
import { updatePost } from '../posts/update-post.js';
import { isTimeOfDay } from '../queue/slots.js';
import { parseWireTime } from '../time.js';
import type { PostView } from '../posts/post-view.js';
import { dateKey, localDateOf, localTimeOf, wallClockToUtc, type LocalDate } from '../zoned-time.js';
import { parseCalendarDate, parseCalendarLayout } from './calendar-dates.js';
import { calendarPeriod } from './calendar-periods.js';
import { checkTimezone } from './calendar-entries.js';

export type TeamCalendar = components['schemas']['TeamCalendar'];
type TeamCalendarEntry = TeamCalendar['entries'][number];

const MAX_ENTRIES = 2000;
const STATUSES: PostStatus[] = ['draft', 'scheduled', 'publishing', 'published', 'failed', 'unconfirmed'];

export type TeamCalendarQuery = NonNullable<operations['getCalendar']['parameters']['query']>;

export async function teamCalendar(
  deps: DomainDeps,
  principal: Principal,
  input: TeamCalendarQuery,
): Promise<TeamCalendar> {
  const timezone = checkTimezone(input.timezone || 'UTC');
  const layout = input.view === undefined ? 'week' : parseCalendarLayout(input.view);
  const period = calendarPeriod(
    layout,
    input.date ? parseCalendarDate(input.date) : localDateOf(deps.now(), timezone),
    timezone,
  );
  const channelIds = [...new Set(input.channelIds ?? [])];
  const channels = new Map((await deps.repos.channels.list(principal.accountId)).map((c) => [c.id, c]));
  const unknown = channelIds.filter((id) => !channels.has(id));
  if (unknown.length > 0) {
    throw new ValidationError('Unknown channels', [
      {
        path: 'channelIds',
        message: `No channel ${unknown.join(', ')} in this account; list them with GET /channels.`,
      },
    ]);
  }
  const posts = await deps.repos.calendars.posts({
    accountId: principal.accountId,
    channelIds,
    labelIds: [],
    from: period.from,
    to: period.to,
    statuses: STATUSES,
    includeLive: input.livePosts ?? false,
    limit: MAX_ENTRIES + 1,
  });
  const entries = posts.slice(0, MAX_ENTRIES).map((post): TeamCalendarEntry => {
    const channel = channels.get(post.channelId);
    return {
      postId: post.id,
      channelId: post.channelId,
      channelName: channel?.displayName ?? channel?.name ?? post.channelId,
      network: channel?.network ?? '',
      at: new Date(post.timelineAt).toISOString(),
      day: dateKey(localDateOf(post.timelineAt, timezone)),
      time: localTimeOf(post.timelineAt, timezone),
      text: post.text,
      imageUrl: post.imageUrls[0] ?? null,
      threadParts: post.thread?.length ?? 0,
      status: post.isLive ? 'live' : post.status,
      approvalStatus: post.approvalStatus,
      permalinkUrl: post.permalinkUrl,
      movable: !post.isLive && post.status === 'scheduled',
      risk: post.isLive ? null : riskView(post),
    };
  });
  const day = (date: LocalDate | null) => (date ? dateKey(date) : null);
  return {
    view: layout,
    timezone,
    date: dateKey(period.anchor),
    firstDay: dateKey(period.first),
    lastDay: dateKey(period.last),
    previous: day(period.previous),
    next: day(period.next),
    entries,
    truncated: posts.length > MAX_ENTRIES,
  };
}

/** Moves a scheduled post to another day (at `time`, else its wall-clock time in `timezone`) or to an exact instant. */
export async function moveScheduledPost(
  deps: DomainDeps,
  principal: Principal,
  postId: string,
  to: { day: string; time?: string; timezone: string } | { at: number },
): Promise<{ post: PostView; from: number }> {
  const post = await deps.repos.posts.get(principal.accountId, postId);
  if (!post) throw new NotFoundError(`No post ${postId} in this account.`);
  if (post.isLive || post.status !== 'scheduled' || post.dateTime === null) {
    throw new ConflictError(
      'post_not_movable',
      `Post ${postId} is ${post.isLive ? 'a live post' : post.status}; only a scheduled post can be moved.`,
    );
  }
  let at: number;
  if ('at' in to) at = to.at;
  else {
    const timezone = checkTimezone(to.timezone);
    const day: LocalDate = parseCalendarDate(to.day, 'day');
    const [hour, minute] = (to.time === undefined ? localTimeOf(post.dateTime, timezone) : parseTimeOfDay(to.time))
      .split(':')
      .map(Number);
    at = wallClockToUtc(timezone, Date.UTC(day.year, day.month - 1, day.day, hour, minute));
  }
  const [moved] = (
    await updatePost(deps, principal, postId, { isScheduled: true, dateTime: new Date(at).toISOString() })
  ).filter((p) => p.id === postId);
  return { post: moved, from: post.dateTime };
}

function parseTimeOfDay(value: string): string {
  if (!isTimeOfDay(value)) {
    throw new ValidationError('time must be a time of day written HH:MM (24-hour).', [
      { path: 'time', message: `Got ${JSON.stringify(value.slice(0, 20))}.` },
    ]);
  }
  return value;
}

/**
 * A move as API users ask for it (POST /posts/{postId}/move): a day (and maybe a time) in a time zone, or an exact
 * instant.
 */
export async function movePostTo(
  deps: DomainDeps,
  principal: Principal,
  postId: string,
  input: { day?: string; time?: string; timezone?: string; dateTime?: string },
): Promise<{ post: PostView; from: number }> {
  if ((input.day === undefined) === (input.dateTime === undefined)) {
    throw new ValidationError('Send either day (with timezone, and time if it should change) or dateTime.', [
      { path: input.day === undefined ? 'day' : 'dateTime', message: 'Give exactly one of day and dateTime.' },
    ]);
  }
  if (input.dateTime !== undefined) {
    if (input.time !== undefined)
      throw new ValidationError('time goes with day, not with dateTime.', [
        { path: 'time', message: 'Leave time out, or send day instead of dateTime.' },
      ]);
    return moveScheduledPost(deps, principal, postId, { at: parseWireTime(input.dateTime, 'dateTime') });
  }
  return moveScheduledPost(deps, principal, postId, {
    day: input.day!,
    time: input.time,
    timezone: input.timezone || 'UTC',
  });
}
