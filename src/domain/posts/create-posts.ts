import type { components } from '../../../generated/rest/openapi-types.js';
import type { PostRecord, SourceType } from '../../db/repositories/posts.js';
import type { DomainDeps } from '../deps.js';
import { newId } from '../ids.js';
import type { Principal } from '../principal.js';
import { toPostView, type PostView } from './post-view.js';
import {
  postType,
  rejectCoverMediaId,
  requireChannels,
  requireContent,
  resolveFirstComment,
  resolveSchedule,
} from './post-rules.js';

export type PostInput = components['schemas']['PostInput'];

/**
 * Creates one post per channel, sharing a group id. When a channel's workspace requires approval the
 * post is held as PENDING and the call still succeeds. `channelOptions` is ignored here (SPEC).
 */
export async function createPosts(deps: DomainDeps, principal: Principal, input: PostInput, source: SourceType): Promise<PostView[]> {
  const records = await preparePosts(deps, principal, input, source);
  await deps.repos.posts.insertMany(records);
  return records.map(toPostView);
}

export async function preparePosts(deps: DomainDeps, principal: Principal, input: PostInput, source: SourceType): Promise<PostRecord[]> {
  rejectCoverMediaId(input);
  const now = deps.now();
  const text = input.text ?? '';
  const imageUrls = input.imageUrls ?? [];
  const videoUrls = input.videoUrls ?? [];
  requireContent(text, imageUrls, videoUrls);
  const schedule = resolveSchedule(input, now);
  const firstComment = resolveFirstComment(input) ?? null;
  const channels = requireChannels(input.channelIds, await deps.repos.channels.findMany(principal.accountId, input.channelIds));
  const workspaces = new Map(
    (await deps.repos.accounts.listWorkspaces(principal.accountId)).map((w) => [w.id, w]),
  );
  const groupId = newId();
  return channels.map((channel) => ({
    id: newId(),
    accountId: principal.accountId,
    workspaceId: channel.workspaceId,
    channelId: channel.id,
    groupId,
    text,
    dateTime: schedule.dateTime,
    timelineAt: schedule.dateTime ?? now,
    isScheduled: schedule.isScheduled,
    isDraft: schedule.isDraft,
    isLive: false,
    status: schedule.status,
    approvalStatus: !schedule.isDraft && workspaces.get(channel.workspaceId)?.approvalRequired ? 'PENDING' : null,
    type: postType(imageUrls, videoUrls),
    sourceType: source,
    imageUrls,
    videoUrls,
    firstComment,
    channelOptions: null,
    networkPostId: null,
    permalinkUrl: null,
    metrics: null,
    lastError: null,
    publishedAt: null,
    createdAt: now,
    updatedAt: now,
  }));
}
