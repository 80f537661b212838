/**
 * Publishing claimed posts, the state machine of a due post:
 * - an attempt left unfinished by a worker that stopped mid-call is reconciled first, never repeated;
 * - the post must still fit its network (the capabilities table, required channelOptions included);
 * - a network that fetches media from its URL must be able to reach a file of Herald's own library (a public
 *   BASE_URL, media/public-base-url.ts);
 * - media URLs must be direct image/video files, checked before the first network call (Herald's own files in
 *   its storage, media-check.ts), of a format the network takes where it names formats (a PNG photo never reaches
 *   TikTok); a host that does not answer counts towards maxAttempts, or the post would wait forever;
 * - a post a rehearsal found at risk before its slot is rehearsed once more when claimed (domain/posts/preflight.ts),
 *   then sent whatever it finds;
 * - at most once: each attempt is recorded, with its attempt key, before the network call (a batch's attempts
 *   in one transaction, guarded by the claim), and the lease is renewed while the call is in flight;
 * - a success is written with the others that finished about the same time (write-behind.ts); until then the
 *   attempt stays unfinished, so a worker that dies first leaves the post to be reconciled, never repeated;
 * - retry_later backs off (backoff.ts) up to maxAttempts, then the post fails; refresh_and_retry refreshes
 *   through the connector and backs off the same way; permanent errors, and auth errors no refresh can
 *   mend, fail the post at once with the reason; an unknown outcome is reconciled (reconciliation.ts).
 */
import type { ChannelRecord } from '../db/repositories/channels.js';
import type { PostRecord } from '../db/repositories/posts.js';
import type { PublishAttemptRecord } from '../db/repositories/publish-attempts.js';
import type { ClaimedPost } from '../db/repositories/publishing.js';
import {
  NetworkError,
  type ConnectorChannel,
  type NetworkConnector,
  type PublishedPost,
} from '../domain/networks/connector.js';
import { formatProblem, validatePost } from '../domain/networks/post-fit.js';
import { unreachableLibraryMedia } from '../domain/media/public-base-url.js';
import { markNeedsReconnect } from '../domain/networks/credential-vault.js';
import { recordRehearsal, rehearse } from '../domain/posts/preflight.js';
import { backoffMs } from './backoff.js';
import { finishPost } from './post-outcomes.js';
import { publishedChanges } from './published.js';
import { reconcile, type Attempt } from './reconciliation.js';
import { connectorChannel } from '../domain/networks/channel-connections.js';
import { postKeyOf, type WorkerRuntime } from './runtime.js';

/** A claimed post that passed every check: its attempt is ready to be recorded, then sent. */
interface Ready {
  post: PostRecord;
  channel: ChannelRecord;
  network: NetworkConnector;
  ref: ConnectorChannel;
  attempt: PublishAttemptRecord;
}

/**
 * Starts a batch of claimed posts, returning each post's run (settled when its outcome is written). The batch
 * reads its channels and interrupted attempts once, and records the attempts of the posts ready to go (no
 * media to check) in one transaction before any of them is sent; a post with media records its own attempt
 * once its media is checked.
 */
export async function publishBatch(rt: WorkerRuntime, claimed: readonly ClaimedPost[]): Promise<Promise<void>[]> {
  if (claimed.length === 0) return [];
  const targets = await rt.connectorsFor(claimed.map(({ post }) => post.channelId));
  const interrupted = await rt.attempts.unfinishedAttempts(
    claimed.map(({ post }) => post.id),
    'publish',
  );
  const others: (() => Promise<void>)[] = [];
  const ready: Ready[] = [];
  for (const item of claimed) {
    const next = preflight(rt, item, targets.get(item.post.channelId)!, interrupted.get(item.post.id));
    if (typeof next === 'function') others.push(next);
    else if (next.post.risk) others.push(() => rehearsedThenSent(rt, next));
    else if (next.post.imageUrls.length + next.post.videoUrls.length > 0) others.push(() => withMedia(rt, next));
    else ready.push(next);
  }
  const held = await rt.repo.startAttempts(
    rt.options.workerId,
    ready.map((r) => r.attempt),
    rt.now() + rt.options.leaseMs,
  );
  const lost = ready.filter((r) => !held.has(r.post.id)).map((r) => r.post.id);
  if (lost.length > 0) {
    // Claimed moments ago, yet not this worker's when their attempts were written (another worker took them, or
    // the posts table changed under the claim): said and put back, never left `publishing` unseen.
    rt.ctx.logger.warn('claimed posts were no longer held when their attempts were recorded; released them', {
      posts: lost.length,
    });
    await rt.repo.release(rt.options.workerId, lost);
  }
  // Nothing starts before the batch's attempts are recorded: a batch that fails there starts nothing at all.
  return [...others.map((run) => run()), ...ready.filter((r) => held.has(r.post.id)).map((r) => send(rt, r))];
}

/** The checks before a post's attempt, in order; a post that cannot be sent now gets the step that settles it. */
function preflight(
  rt: WorkerRuntime,
  { post, attemptCount }: ClaimedPost,
  target: { channel: ChannelRecord; network: NetworkConnector } | { missing: string },
  unfinished: PublishAttemptRecord | undefined,
): Ready | (() => Promise<void>) {
  const { workerId } = rt.options;
  if ('missing' in target)
    return () => finishPost(rt, post, 'failed', `Cannot publish: ${target.missing}.`, rt.now()).then(() => undefined);
  const { channel, network } = target;
  const ref = connectorChannel(rt.ctx.deps, channel);

  // Before anything else: an interrupted attempt may have gone out, so it is settled, never failed unseen.
  if (unfinished)
    return () =>
      reconcile(
        rt,
        post,
        network,
        ref,
        unfinished,
        `attempt ${unfinished.number} was interrupted (its worker stopped mid-call)`,
      );

  if (channel.status === 'needs_reconnect' || channel.status === 'disconnected') {
    const why =
      channel.status === 'disconnected'
        ? 'was disconnected'
        : `needs reconnecting (${channel.statusReason ?? 'the network refused its credentials'})`;
    return () =>
      finishPost(
        rt,
        post,
        'failed',
        `Cannot publish: the channel ${why}; reconnect the channel, then reschedule the post.`,
        rt.now(),
      ).then(() => undefined);
  }

  const issues = validatePost(network.capabilities, post, {
    requireOptions: true,
    textLimit: channel.textLimit ?? undefined,
  });
  if (issues.length > 0)
    return () => finishPost(rt, post, 'failed', issues.map((i) => i.message).join(' '), rt.now()).then(() => undefined);
  const unreachable = unreachableLibraryMedia(rt.ctx.deps.config.baseUrl, network.capabilities, post);
  if (unreachable) return () => finishPost(rt, post, 'failed', unreachable.message, rt.now()).then(() => undefined);

  const rateLimitedUntil = channel.rateLimitedUntil;
  if (rateLimitedUntil && rateLimitedUntil > rt.now()) {
    // The network asked Herald to wait for this channel: calling now would only spend its budget. Waiting is
    // not an attempt, so a long reset never makes the post give up.
    return () =>
      rt.repo
        .waitUntil(
          post.id,
          workerId,
          rateLimitedUntil,
          `Waiting for ${network.capabilities.displayName}'s rate limit to reset.`,
          rt.now(),
        )
        .then(() => undefined);
  }
  const number = attemptCount + 1;
  return {
    post,
    channel,
    network,
    ref,
    attempt: {
      postId: post.id,
      accountId: post.accountId,
      kind: 'publish',
      number,
      idempotencyKey: `${post.id}:${number}`,
      workerId,
      startedAt: rt.now(),
      finishedAt: null,
      outcome: null,
      detail: null,
    },
  };
}

/**
 * A post found at risk before its slot is rehearsed once more as it goes, its claim kept meanwhile: a cause mended
 * since clears the risk before the attempt, one still there is recorded; the post is sent either way, the attempt
 * being the last word (its end state drops the risk). Posts not at risk pay nothing for this.
 */
async function rehearsedThenSent(rt: WorkerRuntime, ready: Ready): Promise<void> {
  const { post, channel, network, ref } = ready;
  const lease = rt.keepLease((until) => rt.repo.renewLease(post.id, rt.options.workerId, until));
  try {
    const { checkMedia } = rt.ctx;
    const risk = await rehearse(rt.ctx.deps, { post, channel, connector: network, target: ref, checkMedia });
    await recordRehearsal(rt.ctx.deps, post, { claimedBy: rt.options.workerId }, risk);
  } catch (error) {
    rt.ctx.logger.error('rehearsing a claimed post failed', error);
  } finally {
    lease.stop();
  }
  if (post.imageUrls.length + post.videoUrls.length > 0) return withMedia(rt, ready);
  const started = { ...ready.attempt, startedAt: rt.now() };
  const held = await rt.repo.startAttempts(rt.options.workerId, [started], rt.now() + rt.options.leaseMs);
  if (held.has(post.id)) await send(rt, { ...ready, attempt: started });
}

/** A post with media waits for a media slot, its claim kept meanwhile, then checks its files and sends. */
async function withMedia(rt: WorkerRuntime, ready: Ready): Promise<void> {
  const lease = rt.keepLease((until) => rt.repo.renewLease(ready.post.id, rt.options.workerId, until));
  await rt.mediaSlots
    .run(async () => {
      lease.stop();
      await checkMediaAndSend(rt, ready);
    })
    .finally(() => lease.stop());
}

async function checkMediaAndSend(rt: WorkerRuntime, ready: Ready): Promise<void> {
  const { post, attempt } = ready;
  try {
    const { capabilities } = ready.network;
    const files = [
      ...post.imageUrls.map((url, i) => ({ url, path: `imageUrls[${i}]`, video: false })),
      ...post.videoUrls.map((url, i) => ({ url, path: `videoUrls[${i}]`, video: true })),
    ];
    for (const { url, path, video } of files) {
      const check = await rt.ctx.checkMedia(url, post.accountId);
      const gif = check.direct && check.mimeType === 'image/gif' && capabilities.media.kinds.gif;
      const kind = video ? 'video' : gif ? 'gif' : 'image';
      const refusal = !check.direct
        ? check.reason
        : check.mimeType && formatProblem(capabilities, kind, check.mimeType, path);
      if (refusal) {
        await finishPost(rt, post, 'failed', refusal, rt.now());
        return;
      }
    }
  } catch (error) {
    if (error instanceof NetworkError && error.kind === 'retry_later') {
      // Nothing was sent, so no network attempt is recorded.
      await backOff(rt, post, attempt.number, error, undefined);
      return;
    }
    throw error;
  }
  const started = { ...attempt, startedAt: rt.now() };
  if (!(await rt.repo.startAttempts(rt.options.workerId, [started], rt.now() + rt.options.leaseMs)).has(post.id))
    return;
  await send(rt, { ...ready, attempt: started });
}

/** The network call of a recorded attempt, its lease renewed meanwhile; a success is written with its batch. */
async function send(rt: WorkerRuntime, { post, network, ref, attempt }: Ready): Promise<void> {
  const { number, idempotencyKey, startedAt } = attempt;
  let published: PublishedPost;
  const lease = rt.keepLease((until) => rt.repo.renewLease(post.id, rt.options.workerId, until));
  try {
    published = await network.publish({
      channel: ref,
      postKey: postKeyOf(post),
      text: post.text,
      imageUrls: post.imageUrls,
      videoUrls: post.videoUrls,
      channelOptions: post.channelOptions,
      attemptKey: idempotencyKey,
      recordHandle: (handle) => rt.attempts.setHandle(idempotencyKey, handle),
    });
  } catch (error) {
    await failedAttempt(rt, post, network, ref, { number, idempotencyKey, startedAt }, error);
    return;
  } finally {
    lease.stop();
  }
  const now = rt.now();
  await rt.publishedWriter.write(post, publishedChanges(post, network, published, now), {
    idempotencyKey,
    outcome: 'published',
    detail: null,
    at: now,
  });
}

async function failedAttempt(
  rt: WorkerRuntime,
  post: PostRecord,
  network: NetworkConnector,
  ref: ConnectorChannel,
  attempt: Attempt,
  error: unknown,
): Promise<void> {
  const { number, idempotencyKey } = attempt;
  const classified = rt.classified(error, 'publishing a post');
  switch (classified.kind) {
    case 'retry_later':
      if (classified.retryAt) await rt.ctx.deps.repos.channels.setRateLimitedUntil(post.channelId, classified.retryAt);
      await backOff(rt, post, number, classified, idempotencyKey);
      return;
    case 'permanent': {
      const now = rt.now();
      await finishPost(rt, post, 'failed', classified.message, now, {
        idempotencyKey,
        outcome: 'permanent',
        detail: classified.message,
        at: now,
      });
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
      await reconcile(
        rt,
        post,
        network,
        ref,
        attempt,
        `attempt ${number} ended without an answer (${classified.message})`,
      );
      return;
  }
}

async function reconnectNeeded(
  rt: WorkerRuntime,
  post: PostRecord,
  network: NetworkConnector,
  idempotencyKey: string,
  error: NetworkError,
): Promise<void> {
  const now = rt.now();
  const message =
    `The channel's connection to ${network.capabilities.displayName} has expired; reconnect it, ` +
    `then reschedule the post. (${error.message})`;
  await markNeedsReconnect(rt.ctx.deps.repos, post.channelId, error.message, now);
  await finishPost(rt, post, 'failed', message, now, {
    idempotencyKey,
    outcome: 'permanent',
    detail: error.message,
    at: now,
  });
}

async function backOff(
  rt: WorkerRuntime,
  post: PostRecord,
  attemptsMade: number,
  error: NetworkError,
  idempotencyKey: string | undefined,
): Promise<void> {
  const { workerId, maxAttempts } = rt.options;
  const now = rt.now();
  const attempt = idempotencyKey
    ? { idempotencyKey, outcome: 'retryable' as const, detail: error.message, at: now }
    : undefined;
  if (attemptsMade >= maxAttempts) {
    await finishPost(
      rt,
      post,
      'failed',
      `Gave up after ${attemptsMade} attempts; the last one said: ${error.message}`,
      now,
      attempt,
    );
    return;
  }
  const nextAt = now + backoffMs(rt.options, attemptsMade, error, now);
  const message = `Attempt ${attemptsMade} failed (${error.message}); retrying at ${new Date(nextAt).toISOString()}.`;
  if (attempt) await rt.repo.reschedule(post.id, workerId, nextAt, message, attempt);
  else await rt.repo.rescheduleUnattempted(post.id, workerId, nextAt, message, now);
}
