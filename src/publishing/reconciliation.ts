/**
 * Attempts whose outcome is unknown (a timeout after sending, a worker that died mid-call):
 * - the network is asked whether the attempt went out (by its attempt key, or its text and time where the
 *   network has no key); found means published;
 * - the network certain that the attempt made no post (NOT_MADE): the attempt is settled as not made and the post
 *   is due again at once (up to maxAttempts, like any retry);
 * - not found, where the network cannot tell, makes the post `unconfirmed` with an explanation for a person; it is
 *   never retried blindly;
 * - every sync looks again at unconfirmed posts, and one that has since appeared becomes published.
 */
import type { PostRecord } from '../db/repositories/posts.js';
import {
  NOT_MADE,
  type ConnectorChannel,
  type NetworkConnector,
  type PublishedPost,
} from '../domain/networks/connector.js';
import { confirmPublished, finishPost, markPublished } from './post-outcomes.js';
import { publishedChanges } from './published.js';
import { connectorChannel } from '../domain/networks/channel-connections.js';
import { pausedUntil } from './channel-pause.js';
import { postKeyOf, type WorkerRuntime } from './runtime.js';

export interface Attempt {
  number: number;
  idempotencyKey: string;
  startedAt: number;
}

export async function reconcile(
  rt: WorkerRuntime,
  post: PostRecord,
  network: NetworkConnector,
  ref: ConnectorChannel,
  attempt: Attempt,
  cause: string,
): Promise<void> {
  const { idempotencyKey } = attempt;
  let found: PublishedPost | typeof NOT_MADE | undefined;
  let lookup = '';
  try {
    found = await network.findPublished({
      channel: ref,
      postKey: postKeyOf(post),
      attemptKey: idempotencyKey,
      text: post.text,
      attemptedAt: attempt.startedAt,
      handle: await rt.attempts.handleOf(idempotencyKey),
    });
  } catch (error) {
    lookup = ` Asking the network failed too: ${rt.classified(error, 'looking up an attempt').message}.`;
  }
  const now = rt.now();
  if (found === NOT_MADE) {
    await notMade(rt, post, attempt, cause, now);
    return;
  }
  if (found) {
    await markPublished(rt, post, publishedChanges(post, network, found, now), {
      idempotencyKey,
      outcome: 'reconciled',
      detail: `${cause}; found on the network by its idempotency key`,
      at: now,
    });
    return;
  }
  const message =
    `Herald cannot confirm whether this post went out: ${cause}, and the network shows no post for it.${lookup} ` +
    'Herald does not retry it on its own, to avoid a duplicate: check the channel, ' +
    'then reschedule the post if it is missing.';
  await finishPost(rt, post, 'unconfirmed', message, now, {
    idempotencyKey,
    outcome: 'unknown',
    detail: cause,
    at: now,
  });
}

async function notMade(
  rt: WorkerRuntime,
  post: PostRecord,
  attempt: Attempt,
  cause: string,
  now: number,
): Promise<void> {
  const settled = {
    idempotencyKey: attempt.idempotencyKey,
    outcome: 'retryable' as const,
    detail: `${cause}; the network has no post from it, so it was not made`,
    at: now,
  };
  if (attempt.number >= rt.options.maxAttempts) {
    await finishPost(
      rt,
      post,
      'failed',
      `Gave up after ${attempt.number} attempts; the last one (${cause}) never reached the network.`,
      now,
      settled,
    );
    return;
  }
  const message = `Attempt ${attempt.number} never reached the network (${cause}); trying again now.`;
  await rt.repo.reschedule(post.id, rt.options.workerId, now, message, settled);
}

export async function reconcileUnconfirmed(rt: WorkerRuntime): Promise<void> {
  for (const post of await rt.repo.unconfirmed(100)) {
    const attempt = await rt.attempts.lastUnknownAttempt(post.id);
    const target = await rt.connectorFor(post.channelId);
    // A paused channel is asked on a later sync, once its pause ends (channel-pause.ts).
    if (!attempt || 'missing' in target || pausedUntil(target.channel, rt.now())) continue;
    const found = await target.network.findPublished({
      channel: connectorChannel(rt.ctx.deps, target.channel),
      postKey: postKeyOf(post),
      attemptKey: attempt.idempotencyKey,
      text: post.text,
      attemptedAt: attempt.startedAt,
      handle: await rt.attempts.handleOf(attempt.idempotencyKey),
    });
    // A post already unconfirmed waits for a person or for the network to show it; it is never re-sent from here.
    if (found && found !== NOT_MADE) {
      await confirmPublished(rt, post, publishedChanges(post, target.network, found, rt.now()), {
        idempotencyKey: attempt.idempotencyKey,
        outcome: 'reconciled',
        detail: 'found on the network by its idempotency key on a later sync',
        at: rt.now(),
      });
    }
  }
}
