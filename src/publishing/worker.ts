import { RELEASING_APPROVALS } from '../domain/approvals/approval-holds.js';
import crypto from 'node:crypto';
import os from 'node:os';
import type { ChannelRecord } from '../db/repositories/channels.js';
import type { PostRecord } from '../db/repositories/posts.js';
import type { ClaimedPost, FirstCommentStepRecord } from '../db/repositories/publishing.js';
import type { DomainDeps } from '../domain/deps.js';
import { livePostRecord } from '../domain/posts/live-post.js';
import { NetworkError, type ConnectorChannel, type NetworkConnector, type PublishedPost } from '../domain/networks/connector.js';
import { validatePost } from '../domain/networks/post-fit.js';
import { recycleDueCollections } from '../domain/recycling/recycling.js';
import type { Logger } from '../logger.js';
import type { MediaChecker } from './media-check.js';
import type { NetworkRegistry } from './networks/registry.js';

/**
 * The publishing worker. The database is the queue; any number of workers (processes, machines) share it.
 *
 * Rules enforced:
 * - a due post is claimed with a lease; every later write is guarded by the claim, so a worker that lost
 *   its lease changes nothing, and a crashed worker's posts are reclaimed once its lease expires;
 * - while a network call is in flight its lease is renewed (every third of leaseMs), so a slow network is
 *   not mistaken for a dead worker; only a worker that stops renewing loses its posts;
 * - a post must still fit its network (the capabilities table, required channelOptions included) when it goes out;
 * - at most once: each attempt is recorded, with an idempotency key, before the network call;
 * - an attempt whose outcome is unknown (a timeout after sending, a worker that died mid-call) is
 *   reconciled with the network by its idempotency key: found means published, otherwise the post
 *   becomes `unconfirmed` with an explanation and is never retried blindly;
 * - retry_later errors back off exponentially with jitter (at least until the network's retryAt) up to
 *   maxAttempts, then the post fails; refresh_and_retry refreshes the token through the connector and backs off
 *   the same way; permanent errors, and auth errors no refresh can mend, fail it at once with the reason;
 * - media URLs must be direct image/video files, checked before the first network call;
 * - first comments are their own step, due delayMinutes after publishing, only where the network takes
 *   them; retried on their own, they never re-publish the post;
 * - stop(): claims nothing more, finishes what is in flight, and puts claimed-but-unstarted posts back.
 */
export interface WorkerOptions {
  workerId: string;
  pollMs: number;
  leaseMs: number;
  batchSize: number;
  /** Network calls in flight at once per worker. */
  concurrency: number;
  maxAttempts: number;
  baseBackoffMs: number;
  maxBackoffMs: number;
  syncIntervalMs: number;
  /** Recent posts read per channel on each live-post sync. */
  syncDepth: number;
}

export interface WorkerContext {
  deps: DomainDeps;
  networks: NetworkRegistry;
  checkMedia: MediaChecker;
  logger: Logger;
}

export interface TickResult {
  claimed: number;
  comments: number;
}

const DEFAULT_WORKER_OPTIONS: Omit<WorkerOptions, 'workerId'> = {
  pollMs: 500,
  leaseMs: 60_000,
  batchSize: 50,
  concurrency: 8,
  maxAttempts: 5,
  baseBackoffMs: 2_000,
  maxBackoffMs: 10 * 60_000,
  syncIntervalMs: 300_000,
  syncDepth: 50,
};

function newWorkerId(): string {
  return `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
}

export class PublishingWorker {
  readonly options: WorkerOptions;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private nextSyncAt = 0;

  constructor(
    private readonly ctx: WorkerContext,
    options: Partial<WorkerOptions> = {},
  ) {
    this.options = { ...DEFAULT_WORKER_OPTIONS, workerId: newWorkerId(), ...options };
  }

  private get repo() {
    return this.ctx.deps.repos.publishing;
  }

  private now(): number {
    return this.ctx.deps.now();
  }

  /** Runs until stop(): ticks back to back while there is work, else every pollMs; syncs every syncIntervalMs. */
  start(): void {
    if (this.loop) return;
    this.loop = (async () => {
      while (!this.stopping) {
        let busy = false;
        try {
          const result = await this.tick();
          busy = result.claimed >= this.options.batchSize;
          if (Date.now() >= this.nextSyncAt) {
            this.nextSyncAt = Date.now() + this.options.syncIntervalMs;
            await this.sync();
            // Recycling collections re-queue on a scale of days: the sync cadence is ample.
            await recycleDueCollections(this.ctx.deps);
          }
        } catch (error) {
          this.ctx.logger.error('publishing worker tick failed', error);
        }
        if (!busy && !this.stopping) await this.sleep(this.options.pollMs);
      }
    })();
  }

  /** Graceful: claims nothing more, lets in-flight posts finish, releases what was claimed but not started. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.loop;
  }

  /** One round: claim due posts and publish them, then make due first comments. */
  async tick(): Promise<TickResult> {
    const claimed = await this.repo.claimDue(this.options.workerId, this.now(), this.options.leaseMs, this.options.batchSize, RELEASING_APPROVALS);
    const unstarted: string[] = [];
    await pool(claimed, this.options.concurrency, async (item) => {
      if (this.stopping) {
        unstarted.push(item.post.id);
        return;
      }
      try {
        await this.publishOne(item);
      } catch (error) {
        // The claim stays; its lease expires and the post is reconsidered (reconciled if an attempt started).
        this.ctx.logger.error('publishing a post failed', error);
      }
    });
    await this.repo.release(this.options.workerId, unstarted);
    const steps = this.stopping ? [] : await this.repo.claimDueComments(this.options.workerId, this.now(), this.options.leaseMs, this.options.batchSize);
    await pool(steps, this.options.concurrency, async (step) => {
      try {
        await this.commentOne(step);
      } catch (error) {
        this.ctx.logger.error('making a first comment failed', error);
      }
    });
    return { claimed: claimed.length, comments: steps.length };
  }

  /** Live-post sync over every channel, and another look for unconfirmed posts. */
  async sync(): Promise<void> {
    await this.reconcileUnconfirmed();
    let after = '';
    for (;;) {
      const channels = await this.repo.channelsAfter(after, 100);
      for (const channel of channels) {
        if (this.stopping) return;
        try {
          await this.syncChannel(channel);
        } catch (error) {
          this.ctx.logger.error('live-post sync failed', error);
        }
      }
      if (channels.length < 100) return;
      after = channels[channels.length - 1].id;
    }
  }

  private async publishOne({ post, attemptCount }: ClaimedPost): Promise<void> {
    const { workerId } = this.options;
    const channel = await this.repo.channel(post.channelId);
    const network = channel && this.ctx.networks.get(channel.network);
    if (!channel || !network) {
      const why = channel ? `Herald has no connector for the network "${channel.network}"` : 'the channel no longer exists';
      await this.repo.finish(post.id, workerId, 'failed', `Cannot publish: ${why}.`, this.now());
      return;
    }
    const ref = networkChannel(channel);

    const unfinished = await this.repo.unfinishedAttempt(post.id, 'publish');
    if (unfinished) {
      await this.reconcile(post, network, ref, unfinished, `attempt ${unfinished.number} was interrupted (its worker stopped mid-call)`);
      return;
    }

    const issues = validatePost(network.capabilities, post, { requireOptions: true });
    if (issues.length > 0) {
      await this.repo.finish(post.id, workerId, 'failed', issues.map((i) => i.message).join(' '), this.now());
      return;
    }

    const number = attemptCount + 1;
    const idempotencyKey = `${post.id}:${number}`;
    try {
      for (const url of [...post.imageUrls, ...post.videoUrls]) {
        const check = await this.ctx.checkMedia(url);
        if (!check.direct) {
          await this.repo.finish(post.id, workerId, 'failed', check.reason, this.now());
          return;
        }
      }
    } catch (error) {
      if (error instanceof NetworkError && error.kind === 'retry_later') {
        // Nothing was sent, so no network attempt is recorded; the check still counts towards maxAttempts,
        // or a host that never answers would keep the post waiting forever.
        await this.backOff(post, number, error, undefined);
        return;
      }
      throw error;
    }

    const startedAt = this.now();
    const started = await this.repo.startAttempt(
      { postId: post.id, accountId: post.accountId, kind: 'publish', number, idempotencyKey, workerId, startedAt, finishedAt: null, outcome: null, detail: null },
      this.now() + this.options.leaseMs,
    );
    if (!started) return;

    let published: PublishedPost;
    const lease = this.keepLease((until) => this.repo.renewLease(post.id, workerId, until));
    try {
      published = await network.publish({
        channel: ref, text: post.text, imageUrls: post.imageUrls, videoUrls: post.videoUrls, channelOptions: post.channelOptions, attemptKey: idempotencyKey,
      });
    } catch (error) {
      await this.failedAttempt(post, network, ref, { number, idempotencyKey, startedAt }, error);
      return;
    } finally {
      lease.stop();
    }
    await this.repo.markPublished(post.id, workerId, this.publishedChanges(post, network, published), {
      idempotencyKey, outcome: 'published', detail: null, at: this.now(),
    });
  }

  private async failedAttempt(post: PostRecord, network: NetworkConnector, ref: ConnectorChannel, attempt: Attempt, error: unknown): Promise<void> {
    const { workerId } = this.options;
    const { number, idempotencyKey } = attempt;
    const classified = this.classified(error, 'publishing a post');
    switch (classified.kind) {
      case 'retry_later':
        await this.backOff(post, number, classified, idempotencyKey);
        return;
      case 'permanent': {
        const now = this.now();
        await this.repo.finish(post.id, workerId, 'failed', classified.message, now, { idempotencyKey, outcome: 'permanent', detail: classified.message, at: now });
        return;
      }
      case 'refresh_and_retry':
        if (await this.refreshed(network, ref)) {
          await this.backOff(post, number, classified, idempotencyKey);
          return;
        }
        await this.reconnectNeeded(post, network, idempotencyKey, classified);
        return;
      case 'reconnect_needed':
        await this.reconnectNeeded(post, network, idempotencyKey, classified);
        return;
      case 'unknown_outcome':
        await this.reconcile(post, network, ref, attempt, `attempt ${number} ended without an answer (${classified.message})`);
        return;
    }
  }

  /**
   * A network's classified error as it is, anything else as an unknown outcome (it may have struck after
   * the network acted) with a message fit for the post's page: the exception itself is logged for the
   * operator, never stored where the API shows it.
   */
  private classified(error: unknown, what: string): NetworkError {
    if (error instanceof NetworkError) return error;
    this.ctx.logger.error(`${what} failed unexpectedly`, error);
    return new NetworkError('unknown_outcome', 'an internal error interrupted the call; the operator can find it in the log');
  }

  /** Exponential back-off with full jitter over its upper half, and never sooner than the network asked. */
  private backoffMs(attemptsMade: number, error: NetworkError, now: number): number {
    const { baseBackoffMs, maxBackoffMs } = this.options;
    const exponential = Math.min(maxBackoffMs, baseBackoffMs * 2 ** Math.max(0, attemptsMade - 1));
    return Math.max(waitAsked(error, now), Math.round(exponential / 2 + Math.random() * (exponential / 2)));
  }

  /** Whether the connector got a fresh token; a connector without a refresh hook cannot. */
  private async refreshed(network: NetworkConnector, ref: ConnectorChannel): Promise<boolean> {
    if (!network.refresh) return false;
    try {
      await network.refresh(ref);
      return true;
    } catch (error) {
      this.ctx.logger.error('refreshing a channel connection failed', error);
      return false;
    }
  }

  private async reconnectNeeded(post: PostRecord, network: NetworkConnector, idempotencyKey: string, error: NetworkError): Promise<void> {
    const now = this.now();
    const message = `The channel's connection to ${network.capabilities.displayName} has expired; reconnect it, then reschedule the post. (${error.message})`;
    await this.repo.finish(post.id, this.options.workerId, 'failed', message, now, { idempotencyKey, outcome: 'permanent', detail: error.message, at: now });
  }

  private async backOff(post: PostRecord, attemptsMade: number, error: NetworkError, idempotencyKey: string | undefined): Promise<void> {
    const { workerId, maxAttempts } = this.options;
    const now = this.now();
    const attempt = idempotencyKey ? { idempotencyKey, outcome: 'retryable' as const, detail: error.message, at: now } : undefined;
    if (attemptsMade >= maxAttempts) {
      const message = `Gave up after ${attemptsMade} attempts; the last one said: ${error.message}`;
      await this.repo.finish(post.id, workerId, 'failed', message, now, attempt);
      return;
    }
    const nextAt = now + this.backoffMs(attemptsMade, error, now);
    const message = `Attempt ${attemptsMade} failed (${error.message}); retrying at ${new Date(nextAt).toISOString()}.`;
    if (attempt) await this.repo.reschedule(post.id, workerId, nextAt, message, attempt);
    else await this.repo.rescheduleUnattempted(post.id, workerId, nextAt, message, now);
  }

  /** The attempt's outcome is unknown: ask the network whether the attempt was published. */
  private async reconcile(post: PostRecord, network: NetworkConnector, ref: ConnectorChannel, attempt: Attempt, cause: string): Promise<void> {
    const { workerId } = this.options;
    const { idempotencyKey } = attempt;
    let found: PublishedPost | undefined;
    let lookup = '';
    try {
      found = await network.findPublished({ channel: ref, attemptKey: idempotencyKey, text: post.text, attemptedAt: attempt.startedAt });
    } catch (error) {
      lookup = ` Asking the network failed too: ${this.classified(error, 'looking up an attempt').message}.`;
    }
    const now = this.now();
    if (found) {
      await this.repo.markPublished(post.id, workerId, this.publishedChanges(post, network, found), {
        idempotencyKey, outcome: 'reconciled', detail: `${cause}; found on the network by its idempotency key`, at: now,
      });
      return;
    }
    const message =
      `Herald cannot confirm whether this post went out: ${cause}, and the network shows no post for it.${lookup} ` +
      'Herald does not retry it on its own, to avoid a duplicate: check the channel, then reschedule the post if it is missing.';
    await this.repo.finish(post.id, workerId, 'unconfirmed', message, now, { idempotencyKey, outcome: 'unknown', detail: cause, at: now });
  }

  /** Unconfirmed posts that have since appeared on the network become published. */
  private async reconcileUnconfirmed(): Promise<void> {
    for (const post of await this.repo.unconfirmed(100)) {
      const attempt = await this.repo.lastUnknownAttempt(post.id);
      const channel = await this.repo.channel(post.channelId);
      const network = channel && this.ctx.networks.get(channel.network);
      if (!attempt || !channel || !network) continue;
      const found = await network.findPublished({ channel: networkChannel(channel), attemptKey: attempt.idempotencyKey, text: post.text, attemptedAt: attempt.startedAt });
      if (found) {
        await this.repo.confirmPublished(post.id, this.publishedChanges(post, network, found), {
          idempotencyKey: attempt.idempotencyKey, outcome: 'reconciled', detail: 'found on the network by its idempotency key on a later sync', at: this.now(),
        });
      }
    }
  }

  private publishedChanges(post: PostRecord, network: NetworkConnector, published: PublishedPost) {
    const comment = post.firstComment && network.capabilities.firstComment !== 'none' ? post.firstComment : undefined;
    const publishedAt = this.now();
    return {
      accountId: post.accountId,
      channelId: post.channelId,
      networkPostId: published.networkPostId,
      permalinkUrl: published.permalinkUrl,
      publishedAt,
      firstCommentDueAt: comment ? publishedAt + comment.delayMinutes * 60_000 : undefined,
    };
  }

  private async commentOne(step: FirstCommentStepRecord): Promise<void> {
    const { workerId, maxAttempts } = this.options;
    const post = await this.ctx.deps.repos.posts.get(step.accountId, step.postId);
    const channel = await this.repo.channel(step.channelId);
    const network = channel && this.ctx.networks.get(channel.network);
    if (!post || post.status !== 'published' || !post.firstComment || !post.networkPostId || !channel || !network) {
      await this.repo.finishComment(step.postId, workerId, { status: 'failed', lastError: 'The post, its first comment or its channel is gone.' });
      return;
    }
    const comment = post.firstComment;
    // One key for every try: a network that honours it makes a retried comment at most once.
    const networkKey = `${post.id}:comment`;
    const attemptKey = `${post.id}:comment:${step.attempts}`;
    const startedAt = this.now();
    await this.repo.recordCommentAttempt({
      postId: post.id, accountId: post.accountId, kind: 'comment', number: step.attempts, idempotencyKey: attemptKey, workerId, startedAt, finishedAt: null, outcome: null, detail: null,
    });
    const lease = this.keepLease((until) => this.repo.renewCommentLease(post.id, workerId, until));
    try {
      const made = await network.comment({
        channel: networkChannel(channel),
        networkPostId: post.networkPostId,
        text: comment.text,
        mediaUrl: network.capabilities.commentMediaUrl ? comment.mediaUrl : undefined,
        attemptKey: networkKey,
      }).finally(() => lease.stop());
      await this.repo.finishAttempt(attemptKey, 'published', null, this.now());
      await this.repo.finishComment(post.id, workerId, { status: 'done', networkCommentId: made.networkCommentId, lastError: null });
    } catch (error) {
      const classified = this.classified(error, 'making a first comment');
      const now = this.now();
      const retryable = classified.kind === 'retry_later' || (classified.kind === 'refresh_and_retry' && (await this.refreshed(network, networkChannel(channel))));
      const retry = (retryable || classified.kind === 'unknown_outcome') && step.attempts < maxAttempts;
      await this.repo.finishAttempt(attemptKey, retryable ? 'retryable' : classified.kind === 'unknown_outcome' ? 'unknown' : 'permanent', classified.message, now);
      if (retry) {
        await this.repo.finishComment(post.id, workerId, { status: 'pending', dueAt: now + this.backoffMs(step.attempts, classified, now), lastError: classified.message });
      } else {
        await this.repo.finishComment(post.id, workerId, { status: 'failed', lastError: classified.message });
      }
    }
  }

  private async syncChannel(channel: ChannelRecord): Promise<void> {
    const network = this.ctx.networks.get(channel.network);
    if (!network) return;
    // One page a sync: syncDepth recent posts are enough to find new ones and refresh the metrics people look at.
    const { posts: recent } = await network.recentPosts(networkChannel(channel), { cursor: null, limit: this.options.syncDepth });
    const known = new Map((await this.repo.ownByNetworkIds(channel.id, recent.map((p) => p.networkPostId))).map((p) => [p.networkPostId, p]));
    // A post made under one of Herald's idempotency keys is Herald's own, even before its worker records the
    // answer (or after that worker died): the publisher or reconciliation claims it, never live-post sync.
    const ours = await this.repo.knownAttemptKeys(recent.flatMap((p) => (p.attemptKey ? [p.attemptKey] : [])));
    const now = this.now();
    const fresh: PostRecord[] = [];
    for (const found of recent) {
      const post = known.get(found.networkPostId);
      if (post) {
        if (post.isLive || post.status === 'published') await this.repo.setMetrics(post.id, found.metrics, now);
        continue;
      }
      if (found.attemptKey && ours.has(found.attemptKey)) continue;
      fresh.push(livePostRecord(channel, found, now));
    }
    await this.repo.insertLivePosts(fresh);
  }

  /** Renews a claim every third of the lease until stop(); a renewal that finds the claim lost stops renewing. */
  private keepLease(renew: (leaseExpiresAt: number) => Promise<boolean>): { stop(): void } {
    const { leaseMs } = this.options;
    const timer = setInterval(() => {
      renew(this.now() + leaseMs).then(
        (held) => {
          if (!held) clearInterval(timer);
        },
        (error) => this.ctx.logger.error('renewing a publishing lease failed', error),
      );
    }, Math.max(1, Math.floor(leaseMs / 3)));
    return { stop: () => clearInterval(timer) };
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}

interface Attempt {
  number: number;
  idempotencyKey: string;
  startedAt: number;
}

/** How long the network asked to wait, from its retryAt; 0 when it did not say. */
function waitAsked(error: NetworkError, now: number): number {
  return error.retryAt === undefined ? 0 : Math.max(0, error.retryAt - now);
}

function networkChannel(channel: ChannelRecord): ConnectorChannel {
  return { accountId: channel.accountId, id: channel.id, network: channel.network, handle: channel.handle };
}

/** Runs work over items with at most `size` at once. */
async function pool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(runners);
}
