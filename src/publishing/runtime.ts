/**
 * What every step of the publishing worker shares: its options, its context (domain deps, connectors,
 * the media check, the log), the clock, and the helpers every step applies the same way:
 * - a failure a connector did not classify is an unknown outcome (it may have struck after the network
 *   acted), stored with a message fit for the post's page; the exception itself goes to the log only;
 * - a token refresh goes through the connector's hook, and a connector without one cannot refresh; a network
 *   refusing it is logged as a warning with its words, anything else as an error with its stack;
 * - while a network call is in flight its lease is renewed every third of leaseMs, so a slow network is
 *   not mistaken for a dead worker; a renewal that finds the claim lost stops renewing.
 */
import crypto from 'node:crypto';
import os from 'node:os';
import type { ChannelRecord } from '../db/repositories/channels.js';
import type { DomainDeps } from '../domain/deps.js';
import {
  NetworkError,
  type ConnectorChannel,
  type PostKey,
  type NetworkConnector,
} from '../domain/networks/connector.js';
import type { Logger } from '../logger.js';
import type { MediaChecker } from './media-check.js';
import type { NetworkRegistry } from './networks/registry.js';
import { Slots } from './slots.js';
import { PublishedWriter } from './write-behind.js';

export interface WorkerOptions {
  workerId: string;
  pollMs: number;
  leaseMs: number;
  batchSize: number;
  /** Network calls in flight at once per worker. */
  concurrency: number;
  /** Of those, posts carrying media (their files are held in memory while they upload). */
  mediaConcurrency: number;
  maxAttempts: number;
  baseBackoffMs: number;
  maxBackoffMs: number;
  syncIntervalMs: number;
  /** Recent posts read per channel on each live-post sync. */
  syncDepth: number;
  /** How long before its slot a post is rehearsed (PREFLIGHT_MINUTES); 0 rehearses nothing. */
  preflightLeadMs: number;
  /** How often a post found at risk is rehearsed again until its slot. */
  preflightRecheckMs: number;
  /** How often the worker looks for posts to rehearse: the window is minutes wide, so seconds late costs nothing. */
  preflightPollMs: number;
}

export interface WorkerContext {
  deps: DomainDeps;
  networks: NetworkRegistry;
  checkMedia: MediaChecker;
  logger: Logger;
}

export const DEFAULT_WORKER_OPTIONS: Omit<WorkerOptions, 'workerId'> = {
  pollMs: 500,
  leaseMs: 60_000,
  batchSize: 50,
  concurrency: 8,
  mediaConcurrency: 8,
  maxAttempts: 5,
  baseBackoffMs: 2_000,
  maxBackoffMs: 10 * 60_000,
  syncIntervalMs: 300_000,
  syncDepth: 50,
  preflightLeadMs: 30 * 60_000,
  preflightRecheckMs: 5 * 60_000,
  preflightPollMs: 10_000,
};

export function newWorkerId(): string {
  return `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString('hex')}`;
}

export function postKeyOf(post: { id: string; createdAt: number | null }): PostKey {
  return { id: post.id, createdAt: post.createdAt ?? 0 };
}

export class WorkerRuntime {
  /** Published posts written in batches (write-behind.ts). */
  readonly publishedWriter: PublishedWriter;
  /** The slots posts with media take turns in. */
  readonly mediaSlots: Slots;

  constructor(
    readonly ctx: WorkerContext,
    readonly options: WorkerOptions,
  ) {
    this.publishedWriter = new PublishedWriter(this);
    this.mediaSlots = new Slots(options.mediaConcurrency);
  }

  get repo() {
    return this.ctx.deps.repos.publishing;
  }

  get attempts() {
    return this.ctx.deps.repos.publishAttempts;
  }

  get commentSteps() {
    return this.ctx.deps.repos.commentSteps;
  }

  get livePosts() {
    return this.ctx.deps.repos.livePosts;
  }

  now(): number {
    return this.ctx.deps.now();
  }

  /** The channel and its connector, or why there is none. */
  async connectorFor(
    channelId: string,
  ): Promise<{ channel: ChannelRecord; network: NetworkConnector } | { missing: string }> {
    return this.target(await this.ctx.deps.repos.channels.anyAccount(channelId));
  }

  /** connectorFor for a batch's channels, read in one statement. */
  async connectorsFor(
    channelIds: readonly string[],
  ): Promise<Map<string, { channel: ChannelRecord; network: NetworkConnector } | { missing: string }>> {
    const unique = [...new Set(channelIds)];
    const channels = new Map((await this.ctx.deps.repos.channels.anyAccountMany(unique)).map((c) => [c.id, c]));
    return new Map(unique.map((id) => [id, this.target(channels.get(id))]));
  }

  private target(
    channel: ChannelRecord | undefined,
  ): { channel: ChannelRecord; network: NetworkConnector } | { missing: string } {
    const network = channel && this.ctx.networks.get(channel.network);
    if (channel && network) return { channel, network };
    return {
      missing: channel
        ? `Herald has no connector for the network "${channel.network}"`
        : 'the channel no longer exists',
    };
  }

  classified(error: unknown, what: string): NetworkError {
    if (error instanceof NetworkError) return error;
    this.ctx.logger.error(`${what} failed unexpectedly`, error);
    return new NetworkError(
      'unknown_outcome',
      'an internal error interrupted the call; the operator can find it in the log',
    );
  }

  async refreshed(network: NetworkConnector, ref: ConnectorChannel): Promise<boolean> {
    if (!network.refresh) return false;
    try {
      await network.refresh(ref);
      return true;
    } catch (error) {
      // A network's refusal is its answer, not a fault of ours: one line with its words, which carry no token.
      if (error instanceof NetworkError)
        this.ctx.logger.warn('a network refused to renew a channel connection', {
          channelId: ref.id,
          network: ref.network,
          reason: error.message,
        });
      else this.ctx.logger.error('refreshing a channel connection failed', error);
      return false;
    }
  }

  keepLease(renew: (leaseExpiresAt: number) => Promise<boolean>): { stop(): void } {
    const { leaseMs } = this.options;
    const timer = this.ctx.deps.timers.every(Math.max(1, Math.floor(leaseMs / 3)), () => {
      renew(this.now() + leaseMs).then(
        (held) => {
          if (!held) timer.cancel();
        },
        (error) => this.ctx.logger.error('renewing a publishing lease failed', error),
      );
    });
    return { stop: () => timer.cancel() };
  }
}
