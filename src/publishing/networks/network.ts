/**
 * One interface every social network implements, and what each network allows.
 *
 * Rules enforced here:
 * - a network publishes with an idempotency key and can be asked later whether a key was published
 *   (reconciling an attempt whose outcome is unknown);
 * - a network's failure is classified once, as a NetworkError: retryable (with the delay it asked for),
 *   permanent (with its reason), auth_expired (the channel must be reconnected) or unknown_outcome
 *   (the request may have gone through: reconcile, never blindly retry);
 * - first comments apply only where SPEC says (Instagram, LinkedIn, Facebook, YouTube, TikTok; X as a reply),
 *   with a media URL only on LinkedIn and Facebook.
 */

export interface NetworkChannel {
  accountId: string;
  id: string;
  network: string;
  handle: string;
}

export interface PublishRequest {
  channel: NetworkChannel;
  text: string;
  imageUrls: readonly string[];
  videoUrls: readonly string[];
  channelOptions: Record<string, unknown> | null;
  idempotencyKey: string;
}

export interface PublishedPost {
  networkPostId: string;
  permalinkUrl: string;
  publishedAt: number;
}

export interface CommentRequest {
  channel: NetworkChannel;
  networkPostId: string;
  text: string;
  mediaUrl?: string;
  idempotencyKey: string;
}

export interface NetworkPost extends PublishedPost {
  text: string;
  imageUrls: string[];
  metrics: Record<string, number>;
}

export interface ValidationIssue {
  path: string;
  message: string;
}

export interface NetworkCapabilities {
  /** The network's name as channels carry it. */
  name: string;
  displayName: string;
  maxTextLength: number;
  maxImages: number;
  maxVideos: number;
  /** How a first comment is made: a comment, a reply (X), or not at all. */
  firstComment: 'comment' | 'reply' | 'none';
  commentMediaUrl: boolean;
}

export type NetworkErrorKind = 'retryable' | 'permanent' | 'auth_expired' | 'unknown_outcome';

/** A network's failure, classified. */
export class NetworkError extends Error {
  constructor(
    readonly kind: NetworkErrorKind,
    message: string,
    /** For retryable errors: how long the network asked us to wait, when it said. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'NetworkError';
  }
}

export interface Network {
  readonly capabilities: NetworkCapabilities;
  /** Length and media limits; empty when the post may be published. */
  validate(post: { text: string; imageUrls: readonly string[]; videoUrls: readonly string[] }): ValidationIssue[];
  publish(request: PublishRequest): Promise<PublishedPost>;
  comment(request: CommentRequest): Promise<{ networkCommentId: string }>;
  /** The post published under this idempotency key, if the network has it. */
  findPublished(channel: NetworkChannel, idempotencyKey: string): Promise<PublishedPost | undefined>;
  /** The channel's recent posts, newest first, with their metrics. */
  fetchRecentPosts(channel: NetworkChannel, limit: number): Promise<NetworkPost[]>;
}

/** SPEC, First comment object: where first comments apply; text limits are the networks' published ones. */
export const NETWORK_CAPABILITIES: Record<string, NetworkCapabilities> = {
  x: { name: 'x', displayName: 'X', maxTextLength: 280, maxImages: 4, maxVideos: 1, firstComment: 'reply', commentMediaUrl: false },
  linkedin: { name: 'linkedin', displayName: 'LinkedIn', maxTextLength: 3000, maxImages: 9, maxVideos: 1, firstComment: 'comment', commentMediaUrl: true },
  facebook: { name: 'facebook', displayName: 'Facebook', maxTextLength: 63206, maxImages: 10, maxVideos: 1, firstComment: 'comment', commentMediaUrl: true },
  instagram: { name: 'instagram', displayName: 'Instagram', maxTextLength: 2200, maxImages: 10, maxVideos: 1, firstComment: 'comment', commentMediaUrl: false },
  youtube: { name: 'youtube', displayName: 'YouTube', maxTextLength: 5000, maxImages: 0, maxVideos: 1, firstComment: 'comment', commentMediaUrl: false },
  tiktok: { name: 'tiktok', displayName: 'TikTok', maxTextLength: 2200, maxImages: 35, maxVideos: 1, firstComment: 'comment', commentMediaUrl: false },
  threads: { name: 'threads', displayName: 'Threads', maxTextLength: 500, maxImages: 10, maxVideos: 1, firstComment: 'none', commentMediaUrl: false },
  bluesky: { name: 'bluesky', displayName: 'Bluesky', maxTextLength: 300, maxImages: 4, maxVideos: 1, firstComment: 'none', commentMediaUrl: false },
  mastodon: { name: 'mastodon', displayName: 'Mastodon', maxTextLength: 500, maxImages: 4, maxVideos: 1, firstComment: 'none', commentMediaUrl: false },
  pinterest: { name: 'pinterest', displayName: 'Pinterest', maxTextLength: 500, maxImages: 1, maxVideos: 1, firstComment: 'none', commentMediaUrl: false },
  // The built-in network: first comments apply (as replies), with media, so every path can be exercised.
  sandbox: { name: 'sandbox', displayName: 'Sandbox', maxTextLength: 5000, maxImages: 10, maxVideos: 1, firstComment: 'reply', commentMediaUrl: true },
};

/** Length and media limits of a post on a network; empty when it may be published. */
export function validateForNetwork(capabilities: NetworkCapabilities, post: { text: string; imageUrls: readonly string[]; videoUrls: readonly string[] }): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const length = [...post.text].length;
  if (length > capabilities.maxTextLength) {
    issues.push({ path: 'text', message: `${capabilities.displayName} allows ${capabilities.maxTextLength} characters; this text has ${length}. Shorten it.` });
  }
  if (post.imageUrls.length > capabilities.maxImages) {
    issues.push({ path: 'imageUrls', message: `${capabilities.displayName} allows ${capabilities.maxImages} image(s) per post; this post has ${post.imageUrls.length}.` });
  }
  if (post.videoUrls.length > capabilities.maxVideos) {
    issues.push({ path: 'videoUrls', message: `${capabilities.displayName} allows ${capabilities.maxVideos} video(s) per post; this post has ${post.videoUrls.length}.` });
  }
  return issues;
}

/** The networks this instance can publish to, by the name channels carry. */
export class NetworkRegistry {
  private readonly networks = new Map<string, Network>();

  register(name: string, network: Network): this {
    this.networks.set(name, network);
    return this;
  }

  get(name: string): Network | undefined {
    return this.networks.get(name);
  }
}
