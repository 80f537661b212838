import { freshPost } from './new-post.js';
import { contentVersion, reviewOfNewPost } from '../approvals/approval-holds.js';
import type { components } from '../../../generated/rest/openapi-types.js';
import type { PostRecord, SourceType } from '../../db/repositories/posts.js';
import type { DomainDeps } from '../deps.js';
import { ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { knownMediaOf, resolveMediaIds } from '../media/media-library.js';
import { requireReachableLibraryMedia } from '../media/public-base-url.js';
import type { Principal } from '../principal.js';
import { nextQueueSlots, rejectQueueConflicts, withSlotRetry } from '../queue/queue.js';
import { toWireTime } from '../time.js';
import { recordNewPostEvents } from '../events/events.js';
import { recordPostEvents } from './post-history.js';
import { toPostView, type PostView } from './post-view.js';
import {
  postType,
  rejectCoverMediaId,
  requireChannels,
  requireContent,
  requireNetworkLimits,
  requireTextByChannel,
  resolveFirstComment,
  resolveSchedule,
} from './post-rules.js';
import { rejectThreadWithFirstComment, resolveThread } from './thread-parts.js';

import { withDraftName } from './draft-name.js';

export type PostInput = components['schemas']['PostInput'];

/**
 * Creates one post per channel, sharing a group id. When a channel's workspace requires approval the
 * post is held as PENDING (approvals/approval-holds.ts) and the call still succeeds. `channelOptions` is ignored
 * here (SPEC).
 */
export async function createPosts(
  deps: DomainDeps,
  principal: Principal,
  input: PostInput,
  surface: SourceType,
): Promise<PostView[]> {
  const source = sourceOf(principal, surface);
  // Queued posts may lose their slot to a concurrent request; preparing again picks the next free one.
  return withSlotRetry(async () => {
    const records = await preparePosts(deps, principal, input, source);
    await deps.repos.inTransaction(async (repos) => {
      await repos.posts.insertMany(records);
      await recordPostEvents(
        { ...deps, repos },
        principal.accountId,
        principal,
        records.map((r) => ({
          postId: r.id,
          kind: r.inQueue ? 'queued' : 'created',
          details: {
            source,
            status: r.status,
            dateTime: toWireTime(r.dateTime),
            approvalStatus: r.approvalStatus,
            version: contentVersion(r),
          },
        })),
      );
      await recordNewPostEvents(
        repos,
        records.map((post) => ({ at: post.createdAt ?? deps.now(), post })),
      );
    });
    return records.map(toPostView);
  });
}

/**
 * Where a post was written: a person signed in to the web app (a session) writes through REST like an integration,
 * yet their posts are the app's, so their history can say so.
 */
function sourceOf(principal: Principal, surface: SourceType): SourceType {
  return principal.tokenKind === 'session' ? 'app' : surface;
}

/** create_image_post: the same as createPosts, for a post that must carry media. */
export async function createMediaPosts(
  deps: DomainDeps,
  principal: Principal,
  input: PostInput,
  source: SourceType,
): Promise<PostView[]> {
  if (!input.imageUrls?.length && !input.videoUrls?.length && !input.mediaIds?.length) {
    throw new ValidationError(
      'An image or video post needs imageUrls, videoUrls or mediaIds; for text only use create_text_post.',
      [
        {
          path: 'imageUrls',
          message: 'Give at least one public, direct image or video file link, or a media library id.',
        },
      ],
    );
  }
  return createPosts(deps, principal, input, source);
}

async function preparePosts(
  deps: DomainDeps,
  principal: Principal,
  given: PostInput,
  source: SourceType,
): Promise<PostRecord[]> {
  const input: PostInput = withDraftName(given);
  rejectCoverMediaId(input);
  const now = deps.now();
  const text = input.text ?? '';
  const media = input.mediaIds?.length
    ? await resolveMediaIds(deps, principal, input.mediaIds)
    : { imageUrls: [], videoUrls: [] };
  const imageUrls = [...(input.imageUrls ?? []), ...media.imageUrls];
  const videoUrls = [...(input.videoUrls ?? []), ...media.videoUrls];
  requireContent(text, imageUrls, videoUrls);
  rejectQueueConflicts(input);
  const schedule = input.addToQueue
    ? { status: 'scheduled' as const, isDraft: false, isScheduled: true, dateTime: null }
    : resolveSchedule(input, now);
  const firstComment = resolveFirstComment(input) ?? null;
  const thread = resolveThread(input) ?? null;
  rejectThreadWithFirstComment({ thread, firstComment }, 'thread');
  const channels = requireChannels(
    input.channelIds,
    await deps.repos.channels.findMany(principal.accountId, input.channelIds),
  );
  requireTextByChannel(input.textByChannel, input.channelIds);
  const threadMedia = thread?.flatMap((part) => [...part.imageUrls, ...part.videoUrls]) ?? [];
  const knownMedia = await knownMediaOf(deps, principal.accountId, [...imageUrls, ...videoUrls, ...threadMedia]);
  const fitted = { text, imageUrls, videoUrls, firstComment, thread, knownMedia };
  requireNetworkLimits(channels, fitted, { textByChannel: input.textByChannel });
  if (!schedule.isDraft) requireReachableLibraryMedia(deps.config.baseUrl, channels, { imageUrls, videoUrls, thread });
  const workspaces = new Map((await deps.repos.accounts.listWorkspaces(principal.accountId)).map((w) => [w.id, w]));
  const queueSlots = input.addToQueue ? await nextQueueSlots(deps, channels, now) : undefined;
  const groupId = newId();
  return channels.map((channel): PostRecord => {
    const slot = queueSlots?.get(channel.id);
    // freshPost's fields go last: V8 adds each property written after a spread on its own, about a microsecond
    // apiece, which made this record 20 µs of a POST (BENCHMARKS.md). None of them is set here.
    return {
      accountId: principal.accountId,
      workspaceId: channel.workspaceId,
      channelId: channel.id,
      groupId,
      text: input.textByChannel?.[channel.id] ?? text,
      dateTime: slot ?? schedule.dateTime,
      timelineAt: slot ?? schedule.dateTime ?? now,
      isScheduled: schedule.isScheduled,
      isDraft: schedule.isDraft,
      status: schedule.status,
      approvalStatus: reviewOfNewPost({
        isDraft: schedule.isDraft,
        approvalRequired: Boolean(workspaces.get(channel.workspaceId)?.approvalRequired),
      }),
      type: postType(imageUrls, videoUrls),
      sourceType: source,
      imageUrls,
      videoUrls,
      firstComment,
      thread,
      channelOptions: null,
      inQueue: slot !== undefined,
      ...freshPost(now),
    };
  });
}
