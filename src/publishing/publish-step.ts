/**
 * Publishing one claimed post, the state machine of a due post:
 * - an attempt left unfinished by a worker that stopped mid-call is reconciled first, never repeated;
 * - the post must still fit its network (the capabilities table, required channelOptions included);
 * - media URLs must be direct image/video files, checked before the first network call; a host that does
 *   not answer counts towards maxAttempts, or the post would wait forever;
 * - at most once: each attempt is recorded, with its attempt key, before the network call, and the lease is
 *   renewed while the call is in flight;
 * - retry_later backs off (backoff.ts) up to maxAttempts, then the post fails; refresh_and_retry refreshes
 *   through the connector and backs off the same way; permanent errors, and auth errors no refresh can
 *   mend, fail the post at once with the reason; an unknown outcome is reconciled (reconciliation.ts).
 */
import type { PostRecord } from '../db/repositories/posts.js';
import type { ClaimedPost } from '../db/repositories/publishing.js';
import { NetworkError, type ConnectorChannel, type NetworkConnector, type PublishedPost } from '../domain/networks/connector.js';
import { validatePost } from '../domain/networks/post-fit.js';
import { markNeedsReconnect } from '../domain/networks/credential-vault.js';
import { backoffMs } from './backoff.js';
import { finishPost, markPublished } from './post-outcomes.js';
import { publishedChanges } from './published.js';
import { reconcile, type Attempt } from './reconciliation.js';
import { connectorChannel } from '../domain/networks/channel-connections.js';
import { postKeyOf, type WorkerRuntime } from './runtime.js';

export async function publishOne(rt: WorkerRuntime, { post, attemptCount }: ClaimedPost): Promise<void> {
  const { workerId } = rt.options;
  const target = await rt.connectorFor(post.channelId);
  if ('missing' in target) {
    await finishPost(rt, post, 'failed', `Cannot publish: ${target.missing}.`, rt.now());
    return;
  }
  const { channel, network } = target;
  const ref = connectorChannel(rt.ctx.deps, channel);

  // Before anything else: an interrupted attempt may have gone out, so it is settled, never failed unseen.
  const unfinished = await rt.attempts.unfinishedAttempt(post.id, 'publish');
  if (unfinished) {
    await reconcile(rt, post, network, ref, unfinished, `attempt ${unfinished.number} was interrupted (its worker stopped mid-call)`);
    return;
  }

  if (channel.status === 'needs_reconnect' || channel.status === 'disconnected') {
    const why = channel.status === 'disconnected' ? 'was disconnected' : `needs reconnecting (${channel.statusReason ?? 'the network refused its credentials'})`;
    await finishPost(rt, post, 'failed', `Cannot publish: the channel ${why}; reconnect the channel, then reschedule the post.`, rt.now());
    return;
  }

  const issues = validatePost(network.capabilities, post, { requireOptions: true, textLimit: channel.textLimit ?? undefined });
  if (issues.length > 0) {
    await finishPost(rt, post, 'failed', issues.map((i) => i.message).join(' '), rt.now());
    return;
  }

  const number = attemptCount + 1;
  const idempotencyKey = `${post.id}:${number}`;
  if (channel.rateLimitedUntil && channel.rateLimitedUntil > rt.now()) {
    // The network asked Herald to wait for this channel: calling now would only spend its budget. Waiting is
    // not an attempt, so a long reset never makes the post give up.
    await rt.repo.waitUntil(post.id, workerId, channel.rateLimitedUntil, `Waiting for ${network.capabilities.displayName}'s rate limit to reset.`, rt.now());
    return;
  }
  try {
    for (const url of [...post.imageUrls, ...post.videoUrls]) {
      const check = await rt.ctx.checkMedia(url);
      if (!check.direct) {
        await finishPost(rt, post, 'failed', check.reason, rt.now());
        return;
      }
    }
  } catch (error) {
    if (error instanceof NetworkError && error.kind === 'retry_later') {
      // Nothing was sent, so no network attempt is recorded.
      await backOff(rt, post, number, error, undefined);
      return;
    }
    throw error;
  }

  const startedAt = rt.now();
  const started = await rt.repo.startAttempt(
    { postId: post.id, accountId: post.accountId, kind: 'publish', number, idempotencyKey, workerId, startedAt, finishedAt: null, outcome: null, detail: null },
    rt.now() + rt.options.leaseMs,
  );
  if (!started) return;

  let published: PublishedPost;
  const lease = rt.keepLease((until) => rt.repo.renewLease(post.id, workerId, until));
  try {
    published = await network.publish({
      channel: ref, postKey: postKeyOf(post), text: post.text, imageUrls: post.imageUrls, videoUrls: post.videoUrls, channelOptions: post.channelOptions, attemptKey: idempotencyKey,
      recordHandle: (handle) => rt.attempts.setHandle(idempotencyKey, handle),
    });
  } catch (error) {
    await failedAttempt(rt, post, network, ref, { number, idempotencyKey, startedAt }, error);
    return;
  } finally {
    lease.stop();
  }
  const now = rt.now();
  await markPublished(rt, post, publishedChanges(post, network, published, now), { idempotencyKey, outcome: 'published', detail: null, at: now });
}

async function failedAttempt(rt: WorkerRuntime, post: PostRecord, network: NetworkConnector, ref: ConnectorChannel, attempt: Attempt, error: unknown): Promise<void> {
  const { number, idempotencyKey } = attempt;
  const classified = rt.classified(error, 'publishing a post');
  switch (classified.kind) {
    case 'retry_later':
      if (classified.retryAt) await rt.ctx.deps.repos.channels.setRateLimitedUntil(post.channelId, classified.retryAt);
      await backOff(rt, post, number, classified, idempotencyKey);
      return;
    case 'permanent': {
      const now = rt.now();
      await finishPost(rt, post, 'failed', classified.message, now, { idempotencyKey, outcome: 'permanent', detail: classified.message, at: now });
      return;
    }
    case 'refresh_and_retry':
      if (await rt.refreshed(network, ref)) {
        await backOff(rt, post, number, classified, idempotencyKey);
        return;
      }
      await reconnectNeeded(rt, post, network, idempotencyKey, classified);
      return;
    case 'reconnect_needed':
      await reconnectNeeded(rt, post, network, idempotencyKey, classified);
      return;
    case 'unknown_outcome':
      await reconcile(rt, post, network, ref, attempt, `attempt ${number} ended without an answer (${classified.message})`);
      return;
  }
}

async function reconnectNeeded(rt: WorkerRuntime, post: PostRecord, network: NetworkConnector, idempotencyKey: string, error: NetworkError): Promise<void> {
  const now = rt.now();
  const message = `The channel's connection to ${network.capabilities.displayName} has expired; reconnect it, then reschedule the post. (${error.message})`;
  await markNeedsReconnect(rt.ctx.deps.repos, post.channelId, error.message, now);
  await finishPost(rt, post, 'failed', message, now, { idempotencyKey, outcome: 'permanent', detail: error.message, at: now });
}

async function backOff(rt: WorkerRuntime, post: PostRecord, attemptsMade: number, error: NetworkError, idempotencyKey: string | undefined): Promise<void> {
  const { workerId, maxAttempts } = rt.options;
  const now = rt.now();
  const attempt = idempotencyKey ? { idempotencyKey, outcome: 'retryable' as const, detail: error.message, at: now } : undefined;
  if (attemptsMade >= maxAttempts) {
    await finishPost(rt, post, 'failed', `Gave up after ${attemptsMade} attempts; the last one said: ${error.message}`, now, attempt);
    return;
  }
  const nextAt = now + backoffMs(rt.options, attemptsMade, error, now);
  const message = `Attempt ${attemptsMade} failed (${error.message}); retrying at ${new Date(nextAt).toISOString()}.`;
  if (attempt) await rt.repo.reschedule(post.id, workerId, nextAt, message, attempt);
  else await rt.repo.rescheduleUnattempted(post.id, workerId, nextAt, message, now);
}
