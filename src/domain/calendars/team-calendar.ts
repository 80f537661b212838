/**
 * The team's own week, for the web app's calendar: unlike a shared calendar it shows everything of the
 * account (failed and unconfirmed posts too), with post ids, and lets a scheduled post be moved.
 *
 * Rules kept here:
 * - a week starts on Monday in the person's time zone; a date outside 2000-2100 is refused (calendar-dates.ts);
 * - only a scheduled post (not live, not published, not in flight) can be moved; moving it to another day keeps
 *   its wall-clock time in the person's time zone; a move to an exact instant (an undo) takes that instant;
 * - a move is an update (update-post.ts): the post leaves its queue slot, approval holds apply as on any update.
 */
import type { DomainDeps } from '../deps.js';
import { ConflictError, NotFoundError } from '../errors.js';
import type { Principal } from '../principal.js';
import { updatePost } from '../posts/update-post.js';
import type { PostView } from '../posts/post-view.js';
import { addDays, dateKey, localDateOf, localTimeOf, startOfDay, wallClockToUtc, weekday, type LocalDate } from '../zoned-time.js';
import { parseCalendarDate } from './calendar-dates.js';
import { checkTimezone } from './calendar-entries.js';

export interface WeekEntry {
  postId: string;
  at: number;
  time: string;
  text: string;
  status: string;
  channel: string;
  network: string;
  movable: boolean;
}

export interface TeamWeek {
  timezone: string;
  days: { key: string; entries: WeekEntry[] }[];
  previous: string;
  next: string;
}

export async function teamWeek(deps: DomainDeps, principal: Principal, input: { date?: string; timezone?: string }): Promise<TeamWeek> {
  const timezone = checkTimezone(input.timezone || 'UTC');
  const around = input.date ? parseCalendarDate(input.date) : localDateOf(deps.now(), timezone);
  const monday = addDays(around, -weekday(around));
  const from = startOfDay(monday, timezone);
  const to = startOfDay(addDays(monday, 7), timezone);
  const posts = await deps.repos.calendars.posts({
    accountId: principal.accountId, channelIds: [], labelIds: [], from, to,
    statuses: ['draft', 'scheduled', 'publishing', 'published', 'failed', 'unconfirmed'], includeLive: true, limit: 2000,
  });
  const channels = new Map((await deps.repos.channels.list(principal.accountId)).map((c) => [c.id, c]));
  const days = Array.from({ length: 7 }, (_, i) => ({ key: dateKey(addDays(monday, i)), entries: [] as WeekEntry[] }));
  for (const post of posts) {
    const key = dateKey(localDateOf(post.timelineAt, timezone));
    const channel = channels.get(post.channelId);
    days.find((d) => d.key === key)?.entries.push({
      postId: post.id, at: post.timelineAt, time: localTimeOf(post.timelineAt, timezone), text: post.text,
      status: post.isLive ? 'live' : post.status, channel: channel?.displayName ?? channel?.name ?? post.channelId, network: channel?.network ?? '',
      movable: !post.isLive && post.status === 'scheduled',
    });
  }
  return { timezone, days, previous: dateKey(addDays(monday, -7)), next: dateKey(addDays(monday, 7)) };
}

/** Moves a scheduled post to another day (same wall-clock time in `timezone`) or back to an exact instant. */
export async function moveScheduledPost(
  deps: DomainDeps,
  principal: Principal,
  postId: string,
  to: { day: string; timezone: string } | { at: number },
): Promise<{ post: PostView; from: number }> {
  const post = await deps.repos.posts.get(principal.accountId, postId);
  if (!post) throw new NotFoundError(`No post ${postId} in this account.`);
  if (post.isLive || post.status !== 'scheduled' || post.dateTime === null) {
    throw new ConflictError('post_not_movable', `Post ${postId} is ${post.isLive ? 'a live post' : post.status}; only a scheduled post can be moved.`);
  }
  let at: number;
  if ('at' in to) at = to.at;
  else {
    const timezone = checkTimezone(to.timezone);
    const day: LocalDate = parseCalendarDate(to.day, 'day');
    const [hour, minute] = localTimeOf(post.dateTime, timezone).split(':').map(Number);
    at = wallClockToUtc(timezone, Date.UTC(day.year, day.month - 1, day.day, hour, minute));
  }
  const [moved] = (await updatePost(deps, principal, postId, { isScheduled: true, dateTime: new Date(at).toISOString() })).filter((p) => p.id === postId);
  return { post: moved, from: post.dateTime };
}
