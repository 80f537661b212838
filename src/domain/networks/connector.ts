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
 *   NOT_MADE only where the network can tell for certain that the attempt made no post and none can still appear
 *   (then the attempt is settled as not made and the post tried again);
 * - answer findComment for a first comment whose try ended with an unknown outcome, the same way (a network
 *   without it never gets a second try at a comment whose first may have been made);
 * - where the network takes threads (capabilities.threads): publish a part as a reply when the request names
 *   `replyTo`, and find it the same way by its key (the part's own, the same for every try at it);
 * - page through the account's recent posts with their metrics (live-post sync), newest first, by the counter names
 *   of its capabilities row (`counters`), and answer `audience` where that row says the network reports one;
 * - throw only NetworkError, classified once (see NetworkFailureKind), with the network's own message;
 * - keep credentials only in the channel's vault (ChannelVault): read them from it for each call, refresh them
 *   through it (so two workers never both spend a rotating refresh token), never log or return them;
 * - reach the network only through Herald's outbound layer, naming the network's real URLs (the operator's
 *   NETWORK_ORIGIN_OVERRIDES rewrite them, for tests and private deployments).
 */

/** The credentials of one channel, opened, with the version a refresh must name to replace them. */
export interface OpenedCredentials {
  credentials: Record<string, unknown>;
  version: number;
  /** When the access credential expires (epoch ms), if the network said. */
  expiresAt: number | null;
}

export interface RenewedCredentials {
  credentials: Record<string, unknown>;
  expiresAt: number | null;
}

/**
 * A channel's credentials, sealed at rest. refresh() runs `renew` at most once per version across every
 * worker and instance: the others wait for its result. A renew that throws reconnect_needed marks the
 * channel needs_reconnect with the network's reason; any other failure leaves it as it was.
 */
export interface ChannelVault {
  read(): Promise<OpenedCredentials>;
  refresh(
    seenVersion: number,
    renew: (current: Record<string, unknown>) => Promise<RenewedCredentials>,
  ): Promise<OpenedCredentials>;
}

/** The channel a call is for, in the domain's terms. */
export interface ConnectorChannel {
  accountId: string;
  id: string;
  network: string;
  handle: string;
  vault: ChannelVault;
  /**
   * Tells Herald the network's budget for this channel is spent until `at` (a rate-limit header said
   * remaining 0): no call is made for the channel before then, so its budget is never overdrawn.
   */
  pauseUntil(at: number): Promise<void>;
}

/** A field a person supplies to connect (an identifier, an app password, a Mastodon instance). */
export interface ConnectField {
  name: string;
  required: boolean;
  /** Never echoed, never logged. */
  secret: boolean;
  description: string;
}

/** How a network connects: by credentials Herald signs in with, or by the network's OAuth consent. */
export interface ConnectionMethod {
  kind: 'credentials' | 'oauth';
  fields: readonly ConnectField[];
}

/** A network account a connection reached, with the credentials to keep in its channel's vault. */
export interface ConnectedAccount {
  /** The network's stable id of the account: connecting it again updates the same channel. */
  networkAccountId: string;
  handle: string;
  displayName: string | null;
  avatarUrl: string | null;
  credentials: Record<string, unknown>;
  expiresAt: number | null;
  /** A text limit above the network's default that this account or instance allows. */
  textLimit: number | null;
}

/** The client registrations Herald keeps per network origin (a Mastodon instance), sealed at rest. */
export interface AppRegistrations {
  get(origin: string, redirectUri: string): Promise<Record<string, string> | undefined>;
  save(origin: string, redirectUri: string, app: Record<string, string>): Promise<void>;
}

export interface AuthorizationStart {
  authorizationUrl: string;
  /** What the callback needs again (the instance), kept sealed with the flow's state. */
  keep: Record<string, string>;
}

/**
 * The same for every attempt at one post: a network that lets Herald name the record (Bluesky's rkey) names it
 * by this, so no retry, however the last attempt ended, can make a second post.
 */
export interface PostKey {
  id: string;
  createdAt: number;
}

/** What a part of a thread replies to: the thread's first post, and the part just before it (network ids). */
export interface ThreadReply {
  rootNetworkPostId: string;
  parentNetworkPostId: string;
}

export interface PublishRequest {
  channel: ConnectorChannel;
  /** A part of a thread: published as a reply to the part before it (only where capabilities.threads). */
  replyTo?: ThreadReply;
  postKey: PostKey;
  text: string;
  imageUrls: readonly string[];
  videoUrls: readonly string[];
  /** Titles and per-network settings, as the capabilities table names them. */
  channelOptions: Record<string, unknown> | null;
  /** Herald's key for this attempt; the same key is sent again only to ask about the same attempt. */
  attemptKey: string;
  /**
   * Keeps what the network gave this attempt (an upload session URI, a media container id, a publish id) with the
   * attempt, durably. Call it before the call that can make the post: if the outcome is then unknown (a timeout, a
   * worker that died), findPublished receives the handle and can ask the network about exactly that attempt.
   */
  recordHandle(handle: string): Promise<void>;
}

/**
 * findPublished's answer when the network is certain the attempt made no post and none can still appear (a
 * lookup the network answers from every key it was ever sent, with no call of that attempt left in flight).
 * Undefined is "cannot tell": the post is then left unconfirmed for a person, never tried again blind.
 */
export const NOT_MADE = 'not_made';

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

/**
 * What Herald knows about a first-comment try whose outcome is unknown. A comment by the channel's account on the
 * post with the same text counts as made, whenever it was made: the comment the person wanted is there either way.
 */
export interface CommentLookup {
  channel: ConnectorChannel;
  networkPostId: string;
  text: string;
  /** The key every try at this comment was made under. */
  attemptKey: string;
}

/** What Herald knows about an attempt whose outcome is unknown, for networks that keep no idempotency key. */
export interface AttemptLookup {
  channel: ConnectorChannel;
  postKey: PostKey;
  attemptKey: string;
  text: string;
  /** When the attempt started: the post, if made, is no older. */
  attemptedAt: number;
  /** What the attempt recorded through recordHandle, if it got that far. */
  handle: string | null;
  /** For a part of a thread: what it replied to. */
  replyTo?: ThreadReply;
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
 * - retry_later: rate limited or briefly unavailable; retryAt (epoch ms) from the network's reset header when it sent
 *   one;
 * - refresh_and_retry: the access token expired and the connector can refresh it (refresh hook), then try again;
 * - reconnect_needed: the connection is gone (revoked, refresh failed, no refresh possible): a person must reconnect;
 * - permanent: the network refused the post for good; the message is the network's;
 * - unknown_outcome: the request may have gone through (timeout after sending): reconcile, never blindly retry.
 */
export type NetworkFailureKind =
  | 'retry_later'
  | 'refresh_and_retry'
  | 'reconnect_needed'
  | 'permanent'
  | 'unknown_outcome';

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
  /** The post this attempt made, if the network has it; NOT_MADE when it can tell that the attempt made none. */
  findPublished(lookup: AttemptLookup): Promise<PublishedPost | typeof NOT_MADE | undefined>;
  /** The first comment an uncertain try made, if the network has it; undefined means it was not made. */
  findComment?(lookup: CommentLookup): Promise<{ networkCommentId: string } | undefined>;
  recentPosts(channel: ConnectorChannel, page: { cursor: string | null; limit: number }): Promise<RecentPostsPage>;
  /**
   * The account's audience now (followers or subscribers), on networks whose capabilities say they report one;
   * null where this channel has none to read (a kind of account the network counts no followers for).
   */
  audience?(channel: ConnectorChannel): Promise<number | null>;
  /** How a person connects an account; absent for channels an operator adds (the sandbox). */
  readonly connection?: ConnectionMethod;
  /** Whether this instance has what the network needs (an OAuth network's app credentials). */
  configured?(): boolean;
  /** Credential networks: signs in with the person's fields. Wrong credentials are a permanent NetworkError. */
  signIn?(fields: Record<string, string>): Promise<ConnectedAccount>;
  /** OAuth networks: where to send the person, for this state and PKCE challenge. */
  startAuthorization?(input: {
    fields: Record<string, string>;
    redirectUri: string;
    state: string;
    codeChallenge: string;
    apps: AppRegistrations;
  }): Promise<AuthorizationStart>;
  /** OAuth networks: exchanges the code the network sent back for the accounts it grants. */
  finishAuthorization?(input: {
    code: string;
    redirectUri: string;
    codeVerifier: string;
    keep: Record<string, string>;
    apps: AppRegistrations;
  }): Promise<ConnectedAccount[]>;
  /**
   * What a reconnect may take from the channel's current connection (the instance, the identifier), so a person gives
   * only what changed.
   */
  fieldsFor?(channel: ConnectorChannel): Promise<Record<string, string>>;
  /** Gets a fresh access token through the channel's vault; throws reconnect_needed when it cannot. */
  refresh?(channel: ConnectorChannel): Promise<void>;
  /**
   * Whether the channel's credentials can be renewed without the person (LinkedIn: only where it granted a refresh
   * token). Absent means they can, or never expire. Herald warns a week before credentials that cannot be renewed
   * expire, and marks the channel needs_reconnect a day before (credential-expiry.ts).
   */
  renewable?(channel: ConnectorChannel): Promise<boolean>;
  /** Revokes the channel's credentials at the network, where it offers that. */
  revoke?(channel: ConnectorChannel): Promise<void>;
  /**
   * Verifies a live channel against the real network without posting (herald network check): the token works,
   * the account is the channel's, and the permissions publishing needs were granted. Networks without it are
   * checked by reading one page of recent posts.
   */
  check?(channel: ConnectorChannel): Promise<ConnectionCheck>;
  /**
   * What the network tells of the channel's remaining publishing quota, asked before a post's slot without posting
   * (domain/posts/preflight.ts): Instagram's content_publishing_limit, Threads' threads_publishing_limit, the
   * YouTube project's units Herald counts. Networks that tell nothing leave it out. Throws only NetworkError.
   */
  readiness?(channel: ConnectorChannel): Promise<Readiness>;
}

/** A channel's standing before a post, as the network tells it. */
export interface Readiness {
  /** Set when no post can be made now: the network's words, and when it said the quota comes back (epoch ms). */
  quotaSpent?: { message: string; until: number | null };
}

/** What a rehearsal found: `problems` empty means the channel can publish. */
export interface ConnectionCheck {
  /** The account the token belongs to, as the network names it. */
  account: string;
  /** The permissions the network says were granted, where it says. */
  grantedScopes: string[] | null;
  /** Each a sentence an operator can act on (a missing scope, an app still in testing, an expiry soon). */
  problems: string[];
}
