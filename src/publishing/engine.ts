import type { SandboxFailureMode } from '../db/repositories/sandbox.js';
import type { DomainDeps } from '../domain/deps.js';
import { NotFoundError, ValidationError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { libraryFiles } from '../domain/media/library-files.js';
import type { Logger } from '../logger.js';
import { safeMediaChecker, type MediaChecker } from './media-check.js';
import { NetworkRegistry } from './networks/registry.js';
import { SandboxNetwork } from './networks/sandbox.js';
import { BlueskyNetwork } from './networks/bluesky.js';
import { MastodonNetwork } from './networks/mastodon.js';
import { YouTubeNetwork } from './networks/youtube.js';
import { YouTubeQuota } from './networks/youtube-quota.js';
import { TikTokNetwork } from './networks/tiktok.js';
import { FacebookNetwork } from './networks/facebook.js';
import { LinkedInNetwork } from './networks/linkedin.js';
import { InstagramNetwork } from './networks/instagram.js';
import { XNetwork } from './networks/x.js';
import { PinterestNetwork } from './networks/pinterest.js';
import { DiscordNetwork } from './networks/discord.js';
import { SlackNetwork } from './networks/slack.js';
import { GoogleBusinessNetwork } from './networks/google-business.js';
import { RedditNetwork } from './networks/reddit.js';
import { TelegramNetwork } from './networks/telegram.js';
import { ThreadsNetwork } from './networks/threads.js';
import { WordPressNetwork } from './networks/wordpress.js';
import { NostrNetwork } from './networks/nostr.js';
import { NetworkHttp, type NetworkHttpOptions } from './networks/network-http.js';
import { DEFAULT_WORKER_OPTIONS } from './runtime.js';
import { PublishingWorker, type WorkerOptions } from './worker.js';

/** The networks of this build: the sandbox (the embedded default) and the real networks' connectors. */
export function createNetworks(deps: Omit<DomainDeps, 'networks'>): NetworkRegistry {
  const outbound: NetworkHttpOptions = {
    fetcher: deps.fetcher,
    overrides: deps.config.networkOriginOverrides,
    allowHosts: deps.config.outboundAllowHosts,
    timeoutMs: deps.config.networks.timeoutMs,
    maxBytes: deps.config.networks.maxResponseBytes,
    library: libraryFiles(deps),
    pollWaitScale: deps.config.networks.pollWaitScale,
  };
  const http = new NetworkHttp(outbound);
  const now = () => deps.now();
  return new NetworkRegistry()
    .register(
      'sandbox',
      new SandboxNetwork(deps.repos.sandbox, deps.config.baseUrl, undefined, now, deps.config.sandboxLatencyMs),
    )
    .register('bluesky', new BlueskyNetwork(http, outbound, now))
    .register('mastodon', new MastodonNetwork(http, outbound, now))
    .register(
      'youtube',
      new YouTubeNetwork(
        http,
        outbound,
        now,
        () => deps.config.networks.apps.google,
        new YouTubeQuota(
          {
            add: (bucket, start, expiresAt, units) => deps.repos.rateLimits.hit(bucket, start, expiresAt, units),
            takeBack: (bucket, start, units) => deps.repos.rateLimits.unhit(bucket, start, units),
          },
          () =>
            deps.config.networks.apps.google && {
              units: deps.config.networks.apps.google.youtubeDailyQuota,
              uploads: deps.config.networks.apps.google.youtubeDailyUploads,
            },
          now,
        ),
      ),
    )
    .register('tiktok', new TikTokNetwork(http, outbound, now, deps.config.networks.apps.tiktok))
    .register('linkedin', new LinkedInNetwork(http, outbound, now, deps.config.networks.apps.linkedin))
    .register('facebook', new FacebookNetwork(http, now, deps.config.networks.apps.facebook))
    .register('instagram', new InstagramNetwork(http, now, deps.config.networks.apps))
    .register('x', new XNetwork(http, outbound, now, deps.config.networks.apps.x))
    .register('pinterest', new PinterestNetwork(http, outbound, now, deps.config.networks.apps.pinterest))
    .register('threads', new ThreadsNetwork(http, now, deps.config.networks.apps.threads))
    .register('wordpress', new WordPressNetwork(http, outbound, now))
    .register('nostr', new NostrNetwork(http, outbound, now))
    .register('telegram', new TelegramNetwork(http, outbound, now))
    .register('discord', new DiscordNetwork(http, outbound, now))
    .register('slack', new SlackNetwork(http, outbound, now, deps.config.networks.apps.slack))
    .register('google_business', new GoogleBusinessNetwork(http, now, () => deps.config.networks.apps.google))
    .register('reddit', new RedditNetwork(http, outbound, now, deps.config.networks.apps.reddit));
}

export function createWorker(
  deps: DomainDeps,
  logger: Logger,
  overrides: { networks?: NetworkRegistry; checkMedia?: MediaChecker; options?: Partial<WorkerOptions> } = {},
): PublishingWorker {
  return new PublishingWorker(
    {
      deps,
      logger,
      networks: overrides.networks ?? (deps.networks as NetworkRegistry),
      checkMedia: overrides.checkMedia ?? safeMediaChecker(deps.config.outboundAllowHosts, libraryFiles(deps)),
    },
    {
      pollMs: deps.config.workerPollMs,
      concurrency: deps.config.workerConcurrency,
      mediaConcurrency: deps.config.workerMediaConcurrency,
      // A batch at least as large as the calls in flight, or the concurrency is never used.
      batchSize: Math.max(DEFAULT_WORKER_OPTIONS.batchSize, deps.config.workerConcurrency),
      leaseMs: deps.config.workerLeaseSeconds * 1000,
      syncIntervalMs: deps.config.syncIntervalSeconds * 1000,
      preflightLeadMs: deps.config.preflightMinutes * 60_000,
      ...overrides.options,
    },
  );
}

const SANDBOX_FAILURE_MODES: readonly SandboxFailureMode[] = [
  'rate_limited',
  'transient',
  'permanent',
  'auth_expired',
  'timeout_after_post',
  'slow_after_post',
];

/** The CLI names a channel by id; --account, when given, must be the channel's. */
async function sandboxChannel(deps: DomainDeps, accountId: string | undefined, channelId: string) {
  const channel = await deps.repos.channels.anyAccount(channelId);
  if (!channel || (accountId !== undefined && channel.accountId !== accountId)) {
    throw new NotFoundError(`No channel ${channelId}${accountId ? ` in account ${accountId}` : ''}`);
  }
  if (channel.network !== 'sandbox')
    throw new ValidationError(`Channel ${channelId} is on ${channel.network}, not the sandbox`);
  return channel;
}

/** `herald sandbox fail`: the channel's next `times` publish calls fail the way `mode` says; `none` clears it. */
export async function setSandboxFailure(
  deps: DomainDeps,
  input: { accountId?: string; channelId: string; mode: string; times: number },
) {
  const mode = input.mode === 'none' ? 'none' : SANDBOX_FAILURE_MODES.find((m) => m === input.mode);
  if (!mode)
    throw new ValidationError(`--mode must be one of ${SANDBOX_FAILURE_MODES.join(', ')}, none; got "${input.mode}"`);
  if (!Number.isInteger(input.times) || input.times < 0)
    throw new ValidationError('--times must be a whole number, 0 or more');
  const channel = await sandboxChannel(deps, input.accountId, input.channelId);
  const times = mode === 'none' ? 0 : input.times;
  await deps.repos.sandbox.setFailure(channel.accountId, channel.id, mode === 'none' ? 'transient' : mode, times);
  return { channelId: channel.id, mode, times };
}

/** `herald sandbox post-external`: a post made on the network outside Herald, for live-post sync to find. */
export async function postExternal(
  deps: DomainDeps,
  input: { accountId?: string; channelId: string; text: string; likes?: number },
) {
  const channel = await sandboxChannel(deps, input.accountId, input.channelId);
  const stored = await deps.repos.sandbox.insertOnce({
    id: newId(),
    accountId: channel.accountId,
    channelId: channel.id,
    text: input.text,
    media: [],
    idempotencyKey: null,
    external: true,
    metrics: { likes: input.likes ?? 0, comments: 0, shares: 0, impressions: 0 },
    replyToId: null,
    createdAt: deps.now(),
  });
  return { networkPostId: stored.id, channelId: channel.id };
}
