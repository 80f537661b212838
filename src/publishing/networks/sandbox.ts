import { newId } from '../../domain/ids.js';
import { NETWORK_CAPABILITIES, type NetworkCapabilities } from '../../domain/networks/capabilities.js';
import {
  NetworkError,
  NOT_MADE,
  type AttemptLookup,
  type CommentLookup,
  type CommentRequest,
  type ConnectedAccount,
  type ConnectionMethod,
  type ConnectorChannel,
  type NetworkConnector,
  type PublishRequest,
  type PublishedPost,
  type RecentPostsPage,
} from '../../domain/networks/connector.js';
import type { SandboxFailureMode, SandboxPost, SandboxStore } from '../../domain/networks/sandbox-store.js';

/**
 * The built-in network, the embedded default: everything runs with no external account.
 *
 * Rules enforced:
 * - what it publishes is kept in sandbox_posts, one row per post, and served by Herald at
 *   `{BASE_URL}/sandbox/{channelId}/{postId}`;
 * - a repeated attempt key returns the post already made, never a second one; findPublished finds it by that key,
 *   and answers NOT_MADE when there is none: the sandbox's posts are rows of Herald's own database, so a call
 *   that made none (its worker killed before or during it) cannot make one later;
 * - first comments are replies to the post, and so is each part of a thread (to the part before it), made once
 *   under its part's key like a post;
 * - told per channel (`herald sandbox fail`), the next N publish calls fail the way real networks do:
 *   rate_limited (retry after a delay), transient (5xx), permanent (rejected), auth_expired (the channel's
 *   access token expired: HTTP 401), timeout_after_post (the
 *   post was made but the answer never came back), slow_after_post (the post is made, the answer takes
 *   SANDBOX_SLOW_MS: long enough to kill a worker mid-publish);
 * - posts "made outside Herald" (`herald sandbox post-external`) are found by live-post sync, which pages through
 *   the channel's posts newest first with an opaque cursor;
 * - connecting takes only a handle: the channel is a sandbox account of that name (connecting the same handle again
 *   is the same channel), so the connect flow can be tried with no network account;
 * - a post's counters grow with its age, the same for the same post at the same age (seeded by its id): nothing in
 *   its first hour, then likes, comments, shares and impressions each a rate of the post times the square root of
 *   its whole hours since, added to what it was stored with; a channel's audience grows the same way with the time
 *   (seeded by the channel's id), so insights can be tried and tested with no network account;
 * - SANDBOX_LATENCY_MS makes every publish and comment wait like a real network (with jitter), so the
 *   engine's behaviour under slow networks can be rehearsed and measured.
 */
const SANDBOX_RETRY_AFTER_MS = 1_000;
const SANDBOX_SLOW_MS = 30_000;
// The failures that strike after the post is made.
const POSTS_ANYWAY: readonly SandboxFailureMode[] = ['timeout_after_post', 'slow_after_post'];

export class SandboxNetwork implements NetworkConnector {
  readonly connection: ConnectionMethod = {
    kind: 'credentials',
    fields: [
      {
        name: 'handle',
        required: true,
        secret: false,
        description: 'Any name for this practice account, e.g. our-brand; its posts appear on a page of this Herald',
      },
    ],
  };

  constructor(
    private readonly store: SandboxStore,
    private readonly baseUrl: string,
    readonly capabilities: NetworkCapabilities = NETWORK_CAPABILITIES.sandbox,
    private readonly now: () => number = Date.now,
    /** SANDBOX_LATENCY_MS: each call waits this long, plus up to half again at random, as a real network would. */
    private readonly latencyMs = 0,
  ) {}

  /**
   * Publish calls made in the same turn of the event loop are stored in one transaction, as one network takes many
   * requests at once.
   */
  private readonly calls = new Gathered<SandboxPost, { failure?: SandboxFailureMode; stored?: SandboxPost }>(
    (records) => this.store.publishMany(records, POSTS_ANYWAY),
  );

  private async latency(): Promise<void> {
    if (this.latencyMs > 0)
      await new Promise((resolve) => setTimeout(resolve, this.latencyMs * (1 + Math.random() / 2)));
  }

  async signIn(fields: Record<string, string>): Promise<ConnectedAccount> {
    const handle = fields.handle.trim().replace(/^@/, '');
    if (!/^[A-Za-z0-9._-]{1,64}$/.test(handle))
      throw new NetworkError(
        'permanent',
        'A sandbox handle is 1 to 64 letters, digits, dots, dashes or underscores, e.g. our-brand.',
      );
    return {
      networkAccountId: `sandbox:${handle.toLowerCase()}`,
      handle,
      displayName: handle,
      avatarUrl: null,
      credentials: {},
      expiresAt: null,
      textLimit: null,
    };
  }

  /** A reconnect needs nothing typed again: the handle is the channel's. */
  async fieldsFor(channel: ConnectorChannel): Promise<Record<string, string>> {
    return { handle: channel.handle };
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    await this.latency();
    const { failure, stored } = await this.calls.add({
      id: newId(),
      accountId: request.channel.accountId,
      channelId: request.channel.id,
      text: request.text,
      media: [...request.imageUrls, ...request.videoUrls],
      idempotencyKey: request.attemptKey,
      external: false,
      metrics: { likes: 0, comments: 0, shares: 0, impressions: 0 },
      replyToId: request.replyTo?.parentNetworkPostId ?? null,
      createdAt: this.now(),
    });
    // Every failure but a slow answer throws: before the post (nothing stored) or after it (timeout_after_post).
    if (failure && failure !== 'slow_after_post') throw failureError(failure, this.now());
    if (failure === 'slow_after_post') await new Promise((resolve) => setTimeout(resolve, SANDBOX_SLOW_MS));
    return this.published(request.channel, stored!.id, stored!.createdAt);
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    await this.latency();
    const parent = await this.store.get(request.channel.id, request.networkPostId);
    if (!parent)
      throw new NetworkError(
        'permanent',
        `The sandbox has no post ${request.networkPostId} on this channel to comment on.`,
      );
    const stored = await this.store.insertOnce({
      id: newId(),
      accountId: request.channel.accountId,
      channelId: request.channel.id,
      text: request.text,
      media: request.mediaUrl && this.capabilities.commentMediaUrl ? [request.mediaUrl] : [],
      idempotencyKey: request.attemptKey,
      external: false,
      metrics: null,
      replyToId: parent.id,
      createdAt: this.now(),
    });
    return { networkCommentId: stored.id };
  }

  async findComment(lookup: CommentLookup): Promise<{ networkCommentId: string } | undefined> {
    const stored = await this.store.findByKey(lookup.channel.id, lookup.attemptKey);
    return stored && { networkCommentId: stored.id };
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | typeof NOT_MADE | undefined> {
    const stored = await this.store.findByKey(lookup.channel.id, lookup.attemptKey);
    return stored ? this.published(lookup.channel, stored.id, stored.createdAt) : NOT_MADE;
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const posts = await this.store.recent(
      channel.id,
      page.limit,
      page.cursor === null ? undefined : fromCursor(page.cursor),
    );
    const last = posts.at(-1);
    return {
      posts: posts.map((p) => ({
        ...this.published(channel, p.id, p.createdAt),
        attemptKey: p.idempotencyKey,
        text: p.text,
        imageUrls: p.media,
        metrics: grownCounters(p.id, p.metrics ?? {}, this.now() - p.createdAt),
      })),
      nextCursor: last && posts.length === page.limit ? `${last.createdAt}.${last.id}` : null,
    };
  }

  async audience(channel: ConnectorChannel): Promise<number> {
    return sandboxAudience(channel.id, this.now());
  }

  private published(channel: ConnectorChannel, id: string, createdAt: number): PublishedPost {
    return { networkPostId: id, permalinkUrl: sandboxPermalink(this.baseUrl, channel.id, id), publishedAt: createdAt };
  }
}

/**
 * Calls gathered for one batched write: those made in the same turn of the event loop go together, one batch at
 * a time (calls made while one is written form the next); each call settles with its own result, and every
 * call of a batch whose write failed fails with its error.
 */
class Gathered<In, Out> {
  private waiting: { input: In; resolve(out: Out): void; reject(error: unknown): void }[] = [];
  private busy = false;

  constructor(private readonly run: (inputs: In[]) => Promise<Out[]>) {}

  add(input: In): Promise<Out> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.busy) return;
    this.busy = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.waiting.splice(0, MAX_BATCH);
    try {
      const outs = await this.run(batch.map((call) => call.input));
      batch.forEach((call, i) => call.resolve(outs[i]));
    } catch (error) {
      for (const call of batch) call.reject(error);
    } finally {
      this.busy = false;
      if (this.waiting.length > 0) this.schedule();
    }
  }
}

const MAX_BATCH = 1_000;

const HOUR_MS = 3_600_000;
const COUNTER_RATES = { likes: 12, comments: 3, shares: 2, impressions: 400 } as const;
// Audience is counted from here, so a channel's followers grow with the clock alone.
const AUDIENCE_EPOCH = Date.UTC(2026, 0, 1);

/** A number in [0.5, 1.5) from a text, the same every time: the sandbox's counters differ by post, never by run. */
function seeded(text: string, salt: string): number {
  let hash = 2166136261;
  for (const char of `${salt}:${text}`) hash = Math.imul(hash ^ char.charCodeAt(0), 16777619);
  return 0.5 + (hash >>> 0) / 2 ** 32;
}

/** A sandbox post's counters at this age: what it was stored with plus its growth (none in its first hour). */
export function grownCounters(postId: string, stored: Record<string, number>, ageMs: number): Record<string, number> {
  const hours = Math.max(0, Math.floor(ageMs / HOUR_MS));
  const counters: Record<string, number> = { ...stored };
  for (const [name, rate] of Object.entries(COUNTER_RATES)) {
    counters[name] = (stored[name] ?? 0) + Math.floor(rate * seeded(postId, name) * Math.sqrt(hours));
  }
  return counters;
}

/** A sandbox channel's followers at a time: a base of its own and a few more each hour. */
export function sandboxAudience(channelId: string, now: number): number {
  const hours = Math.max(0, Math.floor((now - AUDIENCE_EPOCH) / HOUR_MS));
  return Math.floor(100 * seeded(channelId, 'audience')) + Math.floor((hours * seeded(channelId, 'growth')) / 4);
}

function sandboxPermalink(baseUrl: string, channelId: string, postId: string): string {
  return `${baseUrl}/sandbox/${encodeURIComponent(channelId)}/${encodeURIComponent(postId)}`;
}

function fromCursor(cursor: string): { createdAt: number; id: string } {
  const [createdAt, id] = cursor.split('.', 2);
  return { createdAt: Number(createdAt), id: id ?? '' };
}

function failureError(mode: Exclude<SandboxFailureMode, 'slow_after_post'>, now: number): NetworkError {
  switch (mode) {
    case 'rate_limited':
      return new NetworkError(
        'retry_later',
        'Sandbox: rate limited (HTTP 429), retry later.',
        now + SANDBOX_RETRY_AFTER_MS,
      );
    case 'transient':
      return new NetworkError('retry_later', 'Sandbox: service unavailable (HTTP 503).');
    case 'permanent':
      return new NetworkError('permanent', 'Sandbox: the network rejected this post (simulated permanent rejection).');
    case 'auth_expired':
      // The sandbox keeps no refresh token: an expired token needs a person to reconnect.
      return new NetworkError('reconnect_needed', 'Sandbox: HTTP 401, the access token has expired.');
    case 'timeout_after_post':
      return new NetworkError('unknown_outcome', 'Sandbox: the request timed out after the network received it.');
  }
}
