import type { SandboxFailureMode, SandboxRepository } from '../../db/repositories/sandbox.js';
import { newId } from '../../domain/ids.js';
import {
  NETWORK_CAPABILITIES, NetworkError, validateForNetwork,
  type CommentRequest, type Network, type NetworkCapabilities, type NetworkChannel, type NetworkPost, type PublishRequest, type PublishedPost,
} from './network.js';

/**
 * The built-in network, the embedded default: everything runs with no external account.
 *
 * Rules enforced:
 * - what it publishes is kept in sandbox_posts, one row per post, and served by Herald at
 *   `{BASE_URL}/sandbox/{channelId}/{postId}`;
 * - a repeated idempotency key returns the post already made, never a second one;
 * - first comments are replies to the post;
 * - told per channel (`herald sandbox fail`), the next N publish calls fail the way real networks do:
 *   rate_limited (retry after a delay), transient (5xx), permanent (rejected), auth_expired (the channel's
 *   access token expired: HTTP 401), timeout_after_post (the
 *   post was made but the answer never came back), slow_after_post (the post is made, the answer takes
 *   SANDBOX_SLOW_MS: long enough to kill a worker mid-publish);
 * - posts "made outside Herald" (`herald sandbox post-external`) are found by live-post sync.
 */
export const SANDBOX_RETRY_AFTER_MS = 1_000;
export const SANDBOX_SLOW_MS = 30_000;

export class SandboxNetwork implements Network {
  constructor(
    private readonly store: SandboxRepository,
    private readonly baseUrl: string,
    readonly capabilities: NetworkCapabilities = NETWORK_CAPABILITIES.sandbox,
    private readonly now: () => number = Date.now,
  ) {}

  validate(post: { text: string; imageUrls: readonly string[]; videoUrls: readonly string[] }) {
    return validateForNetwork(this.capabilities, post);
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const failure = await this.store.takeFailure(request.channel.id);
    if (failure && failure !== 'timeout_after_post' && failure !== 'slow_after_post') throw failureError(failure);
    const stored = await this.store.insertOnce({
      id: newId(),
      accountId: request.channel.accountId,
      channelId: request.channel.id,
      text: request.text,
      media: [...request.imageUrls, ...request.videoUrls],
      idempotencyKey: request.idempotencyKey,
      external: false,
      metrics: { likes: 0, comments: 0, shares: 0, impressions: 0 },
      replyToId: null,
      createdAt: this.now(),
    });
    if (failure === 'timeout_after_post') throw failureError(failure);
    if (failure === 'slow_after_post') await new Promise((resolve) => setTimeout(resolve, SANDBOX_SLOW_MS));
    return this.published(request.channel, stored.id, stored.createdAt);
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    const parent = await this.store.get(request.channel.id, request.networkPostId);
    if (!parent) throw new NetworkError('permanent', `The sandbox has no post ${request.networkPostId} on this channel to comment on.`);
    const stored = await this.store.insertOnce({
      id: newId(),
      accountId: request.channel.accountId,
      channelId: request.channel.id,
      text: request.text,
      media: request.mediaUrl && this.capabilities.commentMediaUrl ? [request.mediaUrl] : [],
      idempotencyKey: request.idempotencyKey,
      external: false,
      metrics: null,
      replyToId: parent.id,
      createdAt: this.now(),
    });
    return { networkCommentId: stored.id };
  }

  async findPublished(channel: NetworkChannel, idempotencyKey: string): Promise<PublishedPost | undefined> {
    const stored = await this.store.findByKey(channel.id, idempotencyKey);
    return stored && this.published(channel, stored.id, stored.createdAt);
  }

  async fetchRecentPosts(channel: NetworkChannel, limit: number): Promise<NetworkPost[]> {
    const posts = await this.store.recent(channel.id, limit);
    return posts.map((p) => ({
      ...this.published(channel, p.id, p.createdAt),
      idempotencyKey: p.idempotencyKey,
      text: p.text,
      imageUrls: p.media,
      metrics: p.metrics ?? {},
    }));
  }

  private published(channel: NetworkChannel, id: string, createdAt: number): PublishedPost {
    return { networkPostId: id, permalinkUrl: sandboxPermalink(this.baseUrl, channel.id, id), publishedAt: createdAt };
  }
}

export function sandboxPermalink(baseUrl: string, channelId: string, postId: string): string {
  return `${baseUrl}/sandbox/${encodeURIComponent(channelId)}/${encodeURIComponent(postId)}`;
}

function failureError(mode: Exclude<SandboxFailureMode, 'slow_after_post'>): NetworkError {
  switch (mode) {
    case 'rate_limited':
      return new NetworkError('retryable', 'Sandbox: rate limited (HTTP 429), retry later.', SANDBOX_RETRY_AFTER_MS);
    case 'transient':
      return new NetworkError('retryable', 'Sandbox: service unavailable (HTTP 503).');
    case 'permanent':
      return new NetworkError('permanent', 'Sandbox: the network rejected this post (simulated permanent rejection).');
    case 'auth_expired':
      return new NetworkError('auth_expired', 'Sandbox: HTTP 401, the access token has expired.');
    case 'timeout_after_post':
      return new NetworkError('unknown_outcome', 'Sandbox: the request timed out after the network received it.');
  }
}
