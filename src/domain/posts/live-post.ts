/**
 * A live post: one published on the network outside Herald and found by live-post sync (SPEC, Post).
 * Rules: its id starts with live_; it is published, never scheduled or a draft; the fields Herald never
 * set are null (type, sourceType, approvalStatus); videoUrls is always empty and imageUrls best-effort;
 * createdAt records when Herald first saw it, not when it was published; it is read only everywhere
 * (writable-post.ts).
 */
import type { ChannelRecord } from '../../db/repositories/channels.js';
import type { PostRecord } from '../../db/repositories/posts.js';
import { newLivePostId } from '../ids.js';
import type { NetworkPost } from '../networks/connector.js';

export function livePostRecord(
  channel: Pick<ChannelRecord, 'id' | 'accountId' | 'workspaceId'>,
  found: NetworkPost,
  seenAt: number,
): PostRecord {
  return {
    id: newLivePostId(),
    accountId: channel.accountId,
    workspaceId: channel.workspaceId,
    channelId: channel.id,
    groupId: null,
    text: found.text,
    dateTime: found.publishedAt,
    timelineAt: found.publishedAt,
    isScheduled: false,
    isDraft: false,
    isLive: true,
    status: 'published',
    approvalStatus: null,
    type: null,
    sourceType: null,
    imageUrls: found.imageUrls,
    videoUrls: [],
    firstComment: null,
    channelOptions: null,
    networkPostId: found.networkPostId,
    permalinkUrl: found.permalinkUrl,
    metrics: found.metrics,
    lastError: null,
    publishedAt: found.publishedAt,
    createdAt: seenAt,
    updatedAt: null,
  };
}
