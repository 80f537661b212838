import type { NetworkCapabilities } from './capabilities.js';

/**
 * The port every network connector implements (src/publishing/networks/<network>.ts); the sandbox is the first.
 *
 * What a connector MUST do:
 * - read its limits from the capabilities table (its `capabilities` is that table's row), never its own numbers;
 * - publish under Herald's attempt key, using it as the network's idempotency key where the network has one
 *   (Mastodon's Idempotency-Key, Bluesky's rkey), so a repeated key never makes a second post;
 * - answer findPublished for an attempt whose outcome is unknown: by the key where the network keeps it, else by
 *   matching the text on the account's posts made after the attempt started; undefined means not found, never a guess;
 * - page through the account's recent posts with their metrics (live-post sync), newest first;
 * - throw only NetworkError, classified once (see NetworkFailureKind), with the network's own message;
 * - never log or return a channel's credentials: the domain never sees a raw token.
 */

/** The channel a call is for, in the domain's terms. */
export interface ConnectorChannel {
  accountId: string;
  id: string;
  network: string;
  handle: string;
}

export interface PublishRequest {
  channel: ConnectorChannel;
  text: string;
  imageUrls: readonly string[];
  videoUrls: readonly string[];
  /** Titles and per-network settings, as the capabilities table names them. */
  channelOptions: Record<string, unknown> | null;
  /** Herald's key for this attempt; the same key is sent again only to ask about the same attempt. */
  attemptKey: string;
}

export interface PublishedPost {
  networkPostId: string;
  permalinkUrl: string;
  publishedAt: number;
}

export interface CommentRequest {
  channel: ConnectorChannel;
  networkPostId: string;
  text: string;
  /** Only where the network takes a comment's media (capabilities.commentMediaUrl). */
  mediaUrl?: string;
  attemptKey: string;
}

/** What Herald knows about an attempt whose outcome is unknown, for networks that keep no idempotency key. */
export interface AttemptLookup {
  channel: ConnectorChannel;
  attemptKey: string;
  text: string;
  /** When the attempt started: the post, if made, is no older. */
  attemptedAt: number;
}

export interface NetworkPost extends PublishedPost {
  /** The attempt key it was published under, where the network echoes it back. */
  attemptKey: string | null;
  text: string;
  imageUrls: string[];
  metrics: Record<string, number>;
}

export interface RecentPostsPage {
  /** Newest first. */
  posts: NetworkPost[];
  /** Pass back for the next, older page; null on the last one. */
  nextCursor: string | null;
}

/**
 * How a network call failed, decided once by the connector:
 * - retry_later: rate limited or briefly unavailable; retryAt (epoch ms) from the network's reset header when it sent one;
 * - refresh_and_retry: the access token expired and the connector can refresh it (refresh hook), then try again;
 * - reconnect_needed: the connection is gone (revoked, refresh failed, no refresh possible): a person must reconnect;
 * - permanent: the network refused the post for good; the message is the network's;
 * - unknown_outcome: the request may have gone through (timeout after sending): reconcile, never blindly retry.
 */
export type NetworkFailureKind = 'retry_later' | 'refresh_and_retry' | 'reconnect_needed' | 'permanent' | 'unknown_outcome';

export class NetworkError extends Error {
  constructor(
    readonly kind: NetworkFailureKind,
    message: string,
    /** For retry_later: when the network said to come back (epoch ms), if it said. */
    readonly retryAt?: number,
  ) {
    super(message);
    this.name = 'NetworkError';
  }
}

export interface NetworkConnector {
  readonly capabilities: NetworkCapabilities;
  publish(request: PublishRequest): Promise<PublishedPost>;
  comment(request: CommentRequest): Promise<{ networkCommentId: string }>;
  /** The post this attempt made, if the network has it. */
  findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined>;
  recentPosts(channel: ConnectorChannel, page: { cursor: string | null; limit: number }): Promise<RecentPostsPage>;
  /** Completes a connection from the network's authorization answer, storing the credentials encrypted. */
  connect?(channel: ConnectorChannel, authorization: Record<string, string>): Promise<void>;
  /** Gets a fresh access token with the stored refresh credential; throws reconnect_needed when it cannot. */
  refresh?(channel: ConnectorChannel): Promise<void>;
  /** Revokes the channel's credentials at the network, where it offers that. */
  revoke?(channel: ConnectorChannel): Promise<void>;
}
