/**
 * History rules: every change to a post (create, update, queue moves, labels, approval steps,
 * recycling) appends one event naming who did it; Herald's own moves have no actor. History is read
 * within the caller's account only; a live post has none (Herald never changes it).
 */
import type { components } from '../../../generated/rest/openapi-types.js';
import type { PostEventKind } from '../../db/repositories/post-events.js';
import type { DomainDeps } from '../deps.js';
import type { Principal } from '../principal.js';
import { toWireTime } from '../time.js';
import { notFound } from './post-rules.js';

export type PostEventView = components['schemas']['PostEvent'];

export interface PostChange {
  postId: string;
  kind: PostEventKind;
  details?: Record<string, unknown> | null;
}

/** Appends events; `actor` null when Herald acted on its own. */
export async function recordPostEvents(
  deps: DomainDeps,
  accountId: string,
  actor: Principal | null,
  changes: readonly PostChange[],
): Promise<void> {
  const at = deps.now();
  await deps.repos.postEvents.append(
    changes.map((c) => ({
      accountId,
      postId: c.postId,
      at,
      actorUserId: actor?.userId ?? null,
      kind: c.kind,
      details: c.details ?? null,
    })),
  );
}

export async function getPostHistory(deps: DomainDeps, principal: Principal, postId: string): Promise<PostEventView[]> {
  const [post, events] = await Promise.all([
    deps.repos.posts.get(principal.accountId, postId),
    deps.repos.postEvents.list(principal.accountId, postId),
  ]);
  // A deleted post keeps its history; an id never seen in this account is not found.
  if (!post && events.length === 0) throw notFound(postId);
  return events.map((e) => ({ at: toWireTime(e.at), actorUserId: e.actorUserId, kind: e.kind, details: e.details }));
}
