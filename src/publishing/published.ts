import type { PostRecord } from '../db/repositories/posts.js';
import type { NetworkConnector, PublishedPost } from '../domain/networks/connector.js';

/**
 * What a post records once the network has it, whether the publish call answered or reconciliation found
 * it: its network id and permalink, when, when its first comment falls due (only where the network
 * takes first comments), and that its thread's parts follow at once (only where the network takes threads).
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
    threadDueAt: post.thread?.length && network.capabilities.threads ? now : undefined,
  };
}
