import crypto from 'node:crypto';
import type { CalendarViewRecord } from '../../db/repositories/calendars.js';

/** What a calendar shows (channels, labels, drafts, live posts, its time zone and layout). */
export type CalendarView = CalendarViewRecord;
import type { PostStatus } from '../../db/repositories/posts.js';
import type { DomainDeps } from '../deps.js';
import { ValidationError } from '../errors.js';

/**
 * What a calendar page or feed shows for a period, in a form safe to show to anyone holding the link.
 *
 * Rules enforced:
 * - only the account's own posts, on the view's channels (and labels, when set), inside the view's date range;
 * - scheduled, publishing and published posts always; drafts only with includeDrafts; live posts only with
 *   includeLive (the all-content view); failed and unconfirmed posts never;
 * - no internal ids, tokens, errors or metrics leave: an entry carries its time, channel name and network,
 *   state, and (with showText) its text, media URLs and permalink; its uid is a keyed hash of the post id.
 */
export type CalendarLayout = 'month' | 'week' | 'list';
export const CALENDAR_LAYOUTS: readonly CalendarLayout[] = ['month', 'week', 'list'];
const MAX_ENTRIES = 2000;

export interface CalendarEntry {
  uid: string;
  at: number;
  channel: string;
  network: string;
  state: 'scheduled' | 'published' | 'draft' | 'live';
  text: string | null;
  mediaUrls: string[];
  permalink: string | null;
}

function statusesFor(view: Pick<CalendarViewRecord, 'includeDrafts'>): PostStatus[] {
  return view.includeDrafts
    ? ['scheduled', 'publishing', 'published', 'draft']
    : ['scheduled', 'publishing', 'published'];
}

export function checkTimezone(timezone: string, field = 'timezone'): string {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
  } catch {
    throw new ValidationError(`Unknown timezone ${timezone}`, [
      { path: field, message: 'Use an IANA name such as Europe/Berlin or UTC.' },
    ]);
  }
  return timezone;
}

export async function calendarEntries(
  deps: DomainDeps,
  accountId: string,
  view: CalendarViewRecord,
  period: { from: number; to: number },
  uidKey: string,
): Promise<CalendarEntry[]> {
  const from = Math.max(period.from, view.from ?? -Infinity);
  const to = Math.min(period.to, view.to ?? Infinity);
  if (from >= to) return [];
  const posts = await deps.repos.calendars.posts({
    accountId,
    channelIds: view.channelIds,
    labelIds: view.labelIds,
    from,
    to,
    statuses: statusesFor(view),
    includeLive: view.includeLive,
    limit: MAX_ENTRIES,
  });
  const channels = new Map((await deps.repos.channels.list(accountId)).map((c) => [c.id, c]));
  return posts.map((post) => {
    const channel = channels.get(post.channelId);
    const state: CalendarEntry['state'] = post.isLive
      ? 'live'
      : post.status === 'draft'
        ? 'draft'
        : post.status === 'published'
          ? 'published'
          : 'scheduled';
    return {
      uid: crypto.createHmac('sha256', uidKey).update(post.id).digest('hex').slice(0, 32),
      at: post.timelineAt,
      channel: channel?.name ?? 'channel',
      network: channel?.network ?? '',
      state,
      text: view.showText ? post.text : null,
      mediaUrls: view.showText ? [...post.imageUrls, ...post.videoUrls] : [],
      permalink: view.showText ? post.permalinkUrl : null,
    };
  });
}
