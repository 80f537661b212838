import type { PostRecord } from '../db/repositories/posts.js';
import type { NetworkConnector, PublishedPost } from '../domain/networks/connector.js';

/**
 * What a post records once the network has it, whether the publish call answered or reconciliation found
 * it: its network id and permalink, when, and when its first comment falls due (only where the network
 * takes first comments).
 */
export function publishedChanges(post: PostRecord, network: NetworkConnector, published: PublishedPost, now: number) {
  const comment = post.firstComment && network.capabilities.firstComment !== 'none' ? post.firstComment : undefined;
  return {
    accountId: post.accountId,
    channelId: post.channelId,
    networkPostId: published.networkPostId,
    permalinkUrl: published.permalinkUrl,
    publishedAt: now,
    firstCommentDueAt: comment ? now + comment.delayMinutes * 60_000 : undefined,
  };
}
