/**
 * First comments, a step of their own:
 * - due delayMinutes after the post is published, only where the network takes first comments;
 * - one network key for every try, so a network that honours it makes a retried comment at most once;
 * - retried on their own (retry_later, a refreshed token, an unknown outcome) up to maxAttempts with the
 *   same back-off as posts; they never re-publish the post;
 * - a try whose outcome is unknown (a timeout, a worker that died mid-call) is settled before anything else: the
 *   connector looks the comment up (findComment); found, the step is done; not found, it is tried again; a network
 *   that cannot look comments up gets no second try, so a comment is never made twice;
 * - a comment on a paused channel waits until the pause ends without counting a try, and a refusal for rate with a
 *   reset pauses the channel (channel-pause.ts).
 */
import type { FirstCommentStepRecord } from '../db/repositories/comment-steps.js';
import { recordPostEvent } from '../domain/events/events.js';
import { backoffMs } from './backoff.js';
import { connectorChannel } from '../domain/networks/channel-connections.js';
import { NetworkError, type ConnectorChannel, type NetworkConnector } from '../domain/networks/connector.js';
import { pauseOnRateRefusal, pausedUntil } from './channel-pause.js';
import type { WorkerRuntime } from './runtime.js';

export async function commentOne(rt: WorkerRuntime, step: FirstCommentStepRecord): Promise<void> {
  const { workerId, maxAttempts } = rt.options;
  const post = await rt.ctx.deps.repos.posts.get(step.accountId, step.postId);
  const target = await rt.connectorFor(step.channelId);
  if (post?.status !== 'published' || !post.firstComment || !post.networkPostId || 'missing' in target) {
    await rt.commentSteps.finishComment(step.postId, workerId, {
      status: 'failed',
      lastError: 'The post, its first comment or its channel is gone.',
    });
    return;
  }
  const { channel, network } = target;
  const paused = pausedUntil(channel, rt.now());
  if (paused) {
    await rt.commentSteps.finishComment(step.postId, workerId, { status: 'pending', dueAt: paused, returnTry: true });
    return;
  }
  const comment = post.firstComment;
  const networkKey = `${post.id}:comment`;
  const attemptKey = `${post.id}:comment:${step.attempts}`;
  const lease = rt.keepLease((until) => rt.commentSteps.renewCommentLease(post.id, workerId, until));
  try {
    const onNetwork = connectorChannel(rt.ctx.deps, channel);
    const settled = await settleUncertainTry(
      rt,
      network,
      onNetwork,
      post.id,
      post.networkPostId,
      comment.text,
      networkKey,
    );
    await rt.attempts.recordCommentAttempt({
      postId: post.id,
      accountId: post.accountId,
      kind: 'comment',
      number: step.attempts,
      idempotencyKey: attemptKey,
      workerId,
      startedAt: rt.now(),
      finishedAt: settled ? rt.now() : null,
      outcome: settled ? 'reconciled' : null,
      detail: settled ? 'An earlier try had made it: found by looking it up.' : null,
    });
    const made =
      settled ??
      (await network.comment({
        channel: onNetwork,
        networkPostId: post.networkPostId,
        text: comment.text,
        mediaUrl: network.capabilities.commentMediaUrl ? comment.mediaUrl : undefined,
        attemptKey: networkKey,
      }));
    lease.stop();
    const now = rt.now();
    if (!settled) await rt.attempts.finishAttempt(attemptKey, 'published', null, now);
    await rt.ctx.deps.repos.inTransaction(async (repos) => {
      await repos.commentSteps.finishComment(post.id, workerId, {
        status: 'done',
        networkCommentId: made.networkCommentId,
        lastError: null,
      });
      await recordPostEvent(repos, now, 'post.first_comment.published', post, {
        networkCommentId: made.networkCommentId,
      });
    });
  } catch (error) {
    lease.stop();
    const classified = rt.classified(error, 'making a first comment');
    await pauseOnRateRefusal(rt, channel.id, classified);
    const now = rt.now();
    const retryable =
      classified.kind === 'retry_later' ||
      (classified.kind === 'refresh_and_retry' &&
        (await rt.refreshed(network, connectorChannel(rt.ctx.deps, channel))));
    const retry = (retryable || classified.kind === 'unknown_outcome') && step.attempts < maxAttempts;
    await rt.attempts.finishAttempt(
      attemptKey,
      retryable ? 'retryable' : classified.kind === 'unknown_outcome' ? 'unknown' : 'permanent',
      classified.message,
      now,
    );
    if (retry) {
      await rt.commentSteps.finishComment(post.id, workerId, {
        status: 'pending',
        dueAt: now + backoffMs(rt.options, step.attempts, classified, now),
        lastError: classified.message,
      });
    } else {
      await rt.ctx.deps.repos.inTransaction(async (repos) => {
        await repos.commentSteps.finishComment(post.id, workerId, { status: 'failed', lastError: classified.message });
        await recordPostEvent(repos, now, 'post.first_comment.failed', post, { reason: classified.message });
      });
    }
  }
}

/**
 * Looks up the comment an earlier try may have made when that try's outcome is unknown. Returns the comment when
 * the network has it; undefined when there was no uncertain try or the network says it was not made.
 */
async function settleUncertainTry(
  rt: WorkerRuntime,
  network: NetworkConnector,
  channel: ConnectorChannel,
  postId: string,
  networkPostId: string,
  text: string,
  networkKey: string,
): Promise<{ networkCommentId: string } | undefined> {
  const earlier = await rt.attempts.lastCommentAttempt(postId);
  if (!earlier || (earlier.outcome !== null && earlier.outcome !== 'unknown')) return undefined;
  if (earlier.outcome === null)
    await rt.attempts.finishAttempt(
      earlier.idempotencyKey,
      'unknown',
      'The worker stopped before the network answered.',
      rt.now(),
    );
  if (!network.findComment) {
    throw new NetworkError(
      'permanent',
      'An earlier try at the first comment may have reached the network, which Herald cannot ask about comments; ' +
        'it was not tried again, so it is never made twice: check the post on the network.',
    );
  }
  return network.findComment({ channel, networkPostId, text, attemptKey: networkKey });
}
