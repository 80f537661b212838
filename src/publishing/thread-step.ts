/**
 * Threads, a step of their own: the parts of a published post, each a reply to the part before it (the first part
 * replies to the post itself):
 * - due as soon as the post is published, only where the network takes threads;
 * - one part at a time, in order; each part's network id is written to the post's thread, with its try's outcome
 *   and under the step's claim, before the next part goes out, so a worker that stops between parts leaves the
 *   chain to resume where it stopped;
 * - each part has its own key, the same for every try at it (Bluesky's record key, Mastodon's Idempotency-Key), and
 *   each try is recorded before its network call;
 * - a try whose outcome is unknown (a lost answer, a worker that died mid-call) is settled before anything else:
 *   the connector looks the part up by its key (findPublished with `replyTo`); found, the part is done; certainly not
 *   made, it is tried again; where the network cannot tell, the chain stops `unconfirmed` for a person, and no part
 *   is ever sent twice;
 * - a part's media is checked like a post's before its try (direct files, of formats the network takes, and files
 *   of Herald's library only where the network can fetch them);
 * - retry_later, a refreshed token and an unknown outcome retry the part with the same back-off as posts, up to
 *   maxAttempts tries of that part; anything else stops the chain, the reason written on the part that stopped it;
 * - the end of a chain is an event: post.thread.published once every part is out, post.thread.failed where it stopped;
 * - a paused channel waits without counting a try, and a refusal for rate with a reset pauses it (channel-pause.ts).
 */
import type { PostRecord, ThreadPartRecord } from '../db/repositories/posts.js';
import type { AttemptResult } from '../db/repositories/publishing.js';
import type { ThreadStepRecord } from '../db/repositories/thread-steps.js';
import { recordPostEvent } from '../domain/events/events.js';
import { connectorChannel } from '../domain/networks/channel-connections.js';
import {
  NOT_MADE,
  type NetworkError,
  type ConnectorChannel,
  type NetworkConnector,
  type PostKey,
  type PublishedPost,
  type ThreadReply,
} from '../domain/networks/connector.js';
import { formatProblem } from '../domain/networks/post-fit.js';
import { unreachableLibraryMedia } from '../domain/media/public-base-url.js';
import { backoffMs } from './backoff.js';
import { pauseOnRateRefusal, pausedUntil } from './channel-pause.js';
import type { WorkerRuntime } from './runtime.js';

/** A try at a part that failed, and how many tries that part has had. */
class PartTryFailed extends Error {
  constructor(
    readonly error: NetworkError,
    readonly tries: number,
  ) {
    super(error.message);
  }
}

/** Why a part was stopped for a person rather than tried again. */
class ChainStopped extends Error {
  constructor(
    readonly status: 'failed' | 'unconfirmed',
    message: string,
  ) {
    super(message);
  }
}

export async function threadOne(rt: WorkerRuntime, step: ThreadStepRecord): Promise<void> {
  const { workerId } = rt.options;
  const steps = rt.ctx.deps.repos.threadSteps;
  const post = await rt.ctx.deps.repos.posts.get(step.accountId, step.postId);
  const target = await rt.connectorFor(step.channelId);
  if (post?.status !== 'published' || !post.thread?.length || !post.networkPostId || 'missing' in target) {
    const gone = 'The post, its thread or its channel is gone.';
    await steps.finish(step.postId, workerId, { status: 'failed', lastError: gone });
    return;
  }
  const { channel, network } = target;
  const paused = pausedUntil(channel, rt.now());
  if (paused) {
    await steps.finish(step.postId, workerId, { status: 'pending', dueAt: paused, returnTry: true });
    return;
  }
  const thread: ThreadPartRecord[] = post.thread.map((part) => ({ ...part }));
  const onNetwork = connectorChannel(rt.ctx.deps, channel);
  const root = post.networkPostId;
  // Alt texts describe the post's own images; every other setting (a Mastodon visibility) holds for the whole chain.
  const options = Object.fromEntries(Object.entries(post.channelOptions ?? {}).filter(([name]) => name !== 'altText'));
  const lease = rt.keepLease((until) => steps.renewLease(post.id, workerId, until));
  let index = thread.findIndex((part) => !part.networkPostId);
  try {
    for (; index >= 0 && index < thread.length; index++) {
      const part = thread[index];
      const position = index + 2;
      const key = `${post.id}:part:${position}`;
      const parent = index === 0 ? root : thread[index - 1].networkPostId!;
      const replyTo: ThreadReply = { rootNetworkPostId: root, parentNetworkPostId: parent };
      const partKey: PostKey = { id: key, createdAt: (post.createdAt ?? 0) + position };
      const earlier = await rt.attempts.lastPartAttempt(post.id, key);
      const lookup = { key, partKey, text: part.text, replyTo };
      const found = await settleUncertainTry(rt, network, onNetwork, lookup, earlier);
      let made: PublishedPost;
      let attempt: AttemptResult;
      if (found) {
        made = found;
        const detail = 'found on the network by its key';
        attempt = { idempotencyKey: earlier!.idempotencyKey, outcome: 'reconciled', detail, at: rt.now() };
      } else {
        const number = (earlier?.number ?? 0) + 1;
        const attemptKey = `${key}:${number}`;
        await rt.attempts.recordCommentAttempt({
          postId: post.id,
          accountId: post.accountId,
          kind: 'part',
          number,
          idempotencyKey: attemptKey,
          workerId,
          startedAt: rt.now(),
          finishedAt: null,
          outcome: null,
          detail: null,
        });
        try {
          await checkPartMedia(rt, network, post.accountId, part, position);
          made = await network.publish({
            channel: onNetwork,
            postKey: partKey,
            text: part.text,
            imageUrls: part.imageUrls,
            videoUrls: part.videoUrls,
            channelOptions: options,
            attemptKey: key,
            replyTo,
            recordHandle: (handle) => rt.attempts.setHandle(attemptKey, handle),
          });
        } catch (error) {
          if (error instanceof ChainStopped) {
            await rt.attempts.finishAttempt(attemptKey, 'permanent', error.message, rt.now());
            throw error;
          }
          const classified = rt.classified(error, 'publishing a part of a thread');
          await rt.attempts.finishAttempt(attemptKey, outcomeOf(classified), classified.message, rt.now());
          throw new PartTryFailed(classified, number);
        }
        attempt = { idempotencyKey: attemptKey, outcome: 'published', detail: null, at: rt.now() };
      }
      const { networkPostId, permalinkUrl, publishedAt } = made;
      thread[index] = {
        text: part.text,
        imageUrls: part.imageUrls,
        videoUrls: part.videoUrls,
        networkPostId,
        permalinkUrl,
        publishedAt,
      };
      // The part's outcome is durable, with its try's, before the next part goes out: a restart resumes after it.
      if (!(await steps.writeThread(post.id, workerId, thread, attempt))) return;
    }
    await rt.ctx.deps.repos.inTransaction(async (repos) => {
      await repos.threadSteps.finish(post.id, workerId, { status: 'done', lastError: null });
      await recordPostEvent(repos, rt.now(), 'post.thread.published', { ...post, thread });
    });
  } catch (error) {
    await stopOrRetry(rt, { ...post, thread }, step, network, onNetwork, index, error);
  } finally {
    lease.stop();
  }
}

/** After a part's try failed: the step is due again after a back-off, or the chain stops, the reason on the part. */
async function stopOrRetry(
  rt: WorkerRuntime,
  post: PostRecord & { thread: ThreadPartRecord[] },
  step: ThreadStepRecord,
  network: NetworkConnector,
  channel: ConnectorChannel,
  index: number,
  error: unknown,
): Promise<void> {
  const { thread } = post;
  const { workerId, maxAttempts } = rt.options;
  const steps = rt.ctx.deps.repos.threadSteps;
  const now = rt.now();
  if (!(error instanceof ChainStopped)) {
    // Anything but a try's own failure (the lookup of an uncertain try, the database) is tried again like it.
    const failed =
      error instanceof PartTryFailed ? error : new PartTryFailed(rt.classified(error, 'continuing a thread'), 1);
    const classified = failed.error;
    await pauseOnRateRefusal(rt, step.channelId, classified);
    const retryable =
      classified.kind === 'retry_later' ||
      classified.kind === 'unknown_outcome' ||
      (classified.kind === 'refresh_and_retry' && (await rt.refreshed(network, channel)));
    if (retryable && failed.tries < maxAttempts) {
      await steps.finish(step.postId, workerId, {
        status: 'pending',
        dueAt: now + backoffMs(rt.options, failed.tries, classified, now),
        lastError: classified.message,
      });
      return;
    }
    const gaveUp = `gave up after ${failed.tries} tries; the last one said: ${classified.message}`;
    error = new ChainStopped('failed', retryable ? gaveUp : classified.message);
  }
  const stopped = error as ChainStopped;
  const at = Math.min(Math.max(index, 0), thread.length - 1);
  const after = at < thread.length - 1 ? ', nor the parts after it' : '';
  const message = `Part ${at + 2} of the thread did not go out${after}: ${stopped.message}`;
  thread[at] = { ...thread[at], error: message };
  if (!(await steps.writeThread(step.postId, workerId, thread))) return;
  await rt.ctx.deps.repos.inTransaction(async (repos) => {
    await repos.threadSteps.finish(step.postId, workerId, { status: stopped.status, lastError: message });
    await recordPostEvent(repos, now, 'post.thread.failed', post, { reason: message });
  });
}

/**
 * Looks up the part an earlier try may have made when that try's outcome is unknown. Returns the part when the
 * network has it; undefined when there was no uncertain try or the network is certain it was not made.
 */
async function settleUncertainTry(
  rt: WorkerRuntime,
  network: NetworkConnector,
  channel: ConnectorChannel,
  part: { key: string; partKey: PostKey; text: string; replyTo: ThreadReply },
  earlier: { idempotencyKey: string; number: number; outcome: string | null; startedAt: number } | undefined,
): Promise<PublishedPost | undefined> {
  if (!earlier || (earlier.outcome !== null && earlier.outcome !== 'unknown')) return undefined;
  if (earlier.outcome === null) {
    const why = 'The worker stopped before the network answered.';
    await rt.attempts.finishAttempt(earlier.idempotencyKey, 'unknown', why, rt.now());
  }
  let found: PublishedPost | typeof NOT_MADE | undefined;
  try {
    found = await network.findPublished({
      channel,
      postKey: part.partKey,
      attemptKey: part.key,
      text: part.text,
      attemptedAt: earlier.startedAt,
      handle: await rt.attempts.handleOf(earlier.idempotencyKey),
      replyTo: part.replyTo,
    });
  } catch (error) {
    // A lookup that failed is tried again like the try it settles, counted with that part's tries.
    throw new PartTryFailed(rt.classified(error, 'looking up a part of a thread'), earlier.number);
  }
  if (found === NOT_MADE) return undefined;
  if (!found) {
    throw new ChainStopped(
      'unconfirmed',
      'Herald cannot confirm whether an earlier try at it went out, and the ' +
        'network shows no such reply. Herald does not send it again, to avoid a duplicate: check the thread on the ' +
        'network.',
    );
  }
  return found;
}

/** A part's files, checked as a post's are before its try: direct files, of formats the network takes. */
async function checkPartMedia(
  rt: WorkerRuntime,
  network: NetworkConnector,
  accountId: string,
  part: ThreadPartRecord,
  position: number,
): Promise<void> {
  const unreachable = unreachableLibraryMedia(rt.ctx.deps.config.baseUrl, network.capabilities, part);
  if (unreachable) throw new ChainStopped('failed', unreachable.message);
  const files = [
    ...part.imageUrls.map((url, i) => ({ url, path: `imageUrls[${i}]`, video: false })),
    ...part.videoUrls.map((url, i) => ({ url, path: `videoUrls[${i}]`, video: true })),
  ];
  for (const { url, path, video } of files) {
    const check = await rt.ctx.checkMedia(url, accountId);
    const gif = check.direct && check.mimeType === 'image/gif' && network.capabilities.media.kinds.gif;
    const kind = video ? 'video' : gif ? 'gif' : 'image';
    const refusal = !check.direct
      ? check.reason
      : check.mimeType && formatProblem(network.capabilities, kind, check.mimeType, `thread[${position - 2}].${path}`);
    if (refusal) throw new ChainStopped('failed', refusal);
  }
}

function outcomeOf(error: NetworkError): 'retryable' | 'unknown' | 'permanent' {
  if (error.kind === 'unknown_outcome') return 'unknown';
  return error.kind === 'permanent' || error.kind === 'reconnect_needed' ? 'permanent' : 'retryable';
}
