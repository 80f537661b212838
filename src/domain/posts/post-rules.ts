/**
 * The rules every post write obeys, whichever door it came through:
 * - `coverMediaId` is rejected (SPEC: REST create, update, bulk).
 * - Omitting `isScheduled` publishes now; `isScheduled: true` needs a future `dateTime`; a draft never publishes.
 * - `firstComment` is an object; the legacy `instaFirstComment` string becomes `firstComment.text`.
 * - A post has text or media.
 * - A post fits each of its channels' networks, as the capabilities table says (src/domain/networks/post-fit.ts):
 *   a 400 names the channel, the network and the limit; a channel on a network Herald has no connector for is refused.
 */
import type { ChannelRecord } from '../../db/repositories/channels.js';
import type { FirstCommentRecord, PostStatus, PostType } from '../../db/repositories/posts.js';
import { NotFoundError, ValidationError, type FieldProblem } from '../errors.js';
import { findCapabilities, unknownNetworkMessage } from '../networks/capabilities.js';
import { validatePost, type PostForFit } from '../networks/post-fit.js';
import { parseWireTime } from '../time.js';

export function rejectCoverMediaId(input: { coverMediaId?: unknown }, path = 'coverMediaId'): void {
  if (input.coverMediaId !== undefined) {
    throw new ValidationError(
      'coverMediaId is not supported by this API; remove it (video covers are chosen in the app).',
      [{ path, message: 'Remove this field.' }],
    );
  }
}

export interface ScheduleInput {
  isScheduled?: boolean;
  dateTime?: string;
  saveAsDraft?: boolean;
}

export interface Schedule {
  status: PostStatus;
  isDraft: boolean;
  isScheduled: boolean;
  dateTime: number | null;
}

/** Works out when a new post goes out. */
export function resolveSchedule(input: ScheduleInput, now: number): Schedule {
  const dateTime = input.dateTime === undefined ? null : parseWireTime(input.dateTime, 'dateTime');
  if (input.saveAsDraft) {
    return { status: 'draft', isDraft: true, isScheduled: input.isScheduled === true, dateTime };
  }
  if (input.isScheduled === true) {
    if (dateTime === null) {
      throw new ValidationError('dateTime is required when isScheduled is true', [
        { path: 'dateTime', message: 'Give the publish time as ISO 8601 UTC, e.g. 2030-01-01T09:00:00Z' },
      ]);
    }
    if (dateTime <= now) {
      throw new ValidationError('dateTime must be in the future when isScheduled is true', [
        {
          path: 'dateTime',
          message: `${input.dateTime} has already passed; omit isScheduled and dateTime to publish now`,
        },
      ]);
    }
    return { status: 'scheduled', isDraft: false, isScheduled: true, dateTime };
  }
  if (dateTime !== null) {
    throw new ValidationError('dateTime is only used with isScheduled: true', [
      {
        path: 'dateTime',
        message: 'Send isScheduled: true to schedule at this time, or leave dateTime out to publish now',
      },
    ]);
  }
  return { status: 'scheduled', isDraft: false, isScheduled: false, dateTime: now };
}

export function resolveFirstComment(input: {
  firstComment?: { text: string; delayMinutes?: number; mediaUrl?: string } | null;
  instaFirstComment?: string;
}): FirstCommentRecord | null | undefined {
  if (input.firstComment !== undefined && input.instaFirstComment !== undefined) {
    throw new ValidationError('Send firstComment or the legacy instaFirstComment, not both', [
      { path: 'instaFirstComment', message: 'Use firstComment.text instead.' },
    ]);
  }
  if (input.instaFirstComment !== undefined) {
    return input.instaFirstComment === '' ? null : { text: input.instaFirstComment, delayMinutes: 0 };
  }
  if (input.firstComment === undefined || input.firstComment === null) return input.firstComment;
  const { text, delayMinutes, mediaUrl } = input.firstComment;
  return { text, delayMinutes: delayMinutes ?? 0, ...(mediaUrl !== undefined ? { mediaUrl } : {}) };
}

export function postType(imageUrls: readonly string[], videoUrls: readonly string[]): PostType {
  if (videoUrls.length > 0) return 'video';
  if (imageUrls.length > 0) return 'image';
  return 'text';
}

export function requireContent(text: string, imageUrls: readonly string[], videoUrls: readonly string[]): void {
  if (text.trim() === '' && imageUrls.length === 0 && videoUrls.length === 0) {
    throw new ValidationError('A post needs text, imageUrls or videoUrls', [
      { path: 'text', message: 'Give the post text.' },
    ]);
  }
}

/** A text per channel may name only channels the post is for. */
export function requireTextByChannel(
  textByChannel: Readonly<Record<string, string>> | undefined,
  channelIds: readonly string[],
): void {
  const strangers = Object.keys(textByChannel ?? {}).filter((id) => !channelIds.includes(id));
  if (strangers.length > 0) {
    throw new ValidationError(
      `textByChannel names channels the post is not for: ${strangers.join(', ')}`,
      strangers.map((id) => ({
        path: `textByChannel.${id}`,
        message: 'Add the channel to channelIds, or remove its text.',
      })),
    );
  }
}

/** Channels must exist in the caller's account; unknown ids are named so the caller can fix them. */
export function requireChannels(wanted: readonly string[], found: readonly ChannelRecord[]): ChannelRecord[] {
  const byId = new Map(found.map((c) => [c.id, c]));
  const missing = wanted.filter((id) => !byId.has(id));
  if (missing.length > 0) {
    const details: FieldProblem[] = missing.map((id) => ({
      path: 'channelIds',
      message: `No channel ${id} in this account`,
    }));
    throw new ValidationError(
      `Unknown channel id${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}. List channel ids with GET ` +
        '/v1/rest/channels or the get_channels tool.',
      details,
    );
  }
  return wanted.map((id) => byId.get(id)!);
}

export function notFound(id: string): NotFoundError {
  return new NotFoundError(`No post ${id} in this account`);
}

/**
 * Refuses a post that does not fit one of its channels' networks, naming the limit. `requireOptions` when the write
 * sets channelOptions (create ignores them, so their required fields are asked for on update and at publishing).
 */
export function requireNetworkLimits(
  channels: readonly Pick<ChannelRecord, 'id' | 'network' | 'textLimit'>[],
  post: PostForFit,
  options: { requireOptions?: boolean; textByChannel?: Readonly<Record<string, string>> } = {},
): void {
  const details: FieldProblem[] = [];
  for (const channel of channels) {
    const capabilities = findCapabilities(channel.network);
    if (!capabilities) {
      details.push({
        path: 'channelIds',
        message: `Channel ${channel.id}: ${unknownNetworkMessage(channel.network)} Remove the channel from channelIds.`,
      });
      continue;
    }
    // A channel's own text is checked in place of the shared one, and its problems point at that text.
    const own = options.textByChannel?.[channel.id];
    const fitted = own === undefined ? post : { ...post, text: own };
    for (const issue of validatePost(capabilities, fitted, {
      requireOptions: options.requireOptions,
      textLimit: channel.textLimit ?? undefined,
    })) {
      const path = own !== undefined && issue.path === 'text' ? `textByChannel.${channel.id}` : issue.path;
      details.push({ path, message: `Channel ${channel.id}: ${issue.message}` });
    }
  }
  if (details.length > 0)
    throw new ValidationError(`The post does not fit its network: ${details[0].message}`, details);
}
