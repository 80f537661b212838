/**
 * Recycling rules (recycle_post, list_collections, the periodic re-queue):
 * - Only a published post of Herald's own can be recycled; live posts are read only, unpublished
 *   posts are refused (nothing to recycle yet).
 * - The copy goes to the same channel with `sourceType: recycle` and `recycledFromPostId`; it takes
 *   the channel's next free queue slot, or the given future `dateTime`. It passes approval like any
 *   new post (PENDING where the workspace requires it).
 * - Optionally the original joins a collection (existing, or created with name, intervalDays, endsAt);
 *   a collection with an interval re-queues a copy of each of its posts every intervalDays, until endsAt.
 * - The periodic re-queue runs on its own (no actor in the history) and is safe with several
 *   instances: a run is claimed by moving the collection's next run forward first.
 */
import { freshPost } from '../posts/new-post.js';
import { contentVersion, reviewOfNewPost } from '../approvals/approval-holds.js';
import type { components } from '../../../generated/rest/openapi-types.js';
import type { CollectionRecord } from '../../db/repositories/collections.js';
import type { PostRecord } from '../../db/repositories/posts.js';
import type { DomainDeps } from '../deps.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import type { Principal } from '../principal.js';
import { recordPostEvents } from '../posts/post-history.js';
import { recordNewPostEvents } from '../events/events.js';
import { toPostView, type PostView } from '../posts/post-view.js';
import { writablePost } from '../posts/writable-post.js';
import { nextQueueSlots, withSlotRetry } from '../queue/queue.js';
import { parseWireTime, toWireTime } from '../time.js';
import { unpublishedThread } from '../posts/thread-parts.js';

export type CollectionView = components['schemas']['Collection'];
const DAY_MS = 86_400_000;

export interface RecycleInput {
  dateTime?: string;
  collectionId?: string;
  collection?: { name: string; intervalDays?: number; endsAt?: string };
}

function toCollectionView(c: CollectionRecord): CollectionView {
  return {
    id: c.id,
    name: c.name,
    intervalDays: c.intervalDays,
    endsAt: toWireTime(c.endsAt),
    nextRunAt: toWireTime(c.nextRunAt),
    postIds: c.postIds,
    createdAt: toWireTime(c.createdAt),
  };
}

export async function listCollections(deps: DomainDeps, principal: Principal): Promise<CollectionView[]> {
  return (await deps.repos.collections.list(principal.accountId)).map(toCollectionView);
}

export async function recyclePost(
  deps: DomainDeps,
  principal: Principal,
  postId: string,
  input: RecycleInput = {},
): Promise<{ data: PostView; collection?: CollectionView }> {
  const source = await writablePost(deps, principal, postId);
  if (source.status !== 'published') {
    throw new ConflictError(
      'post_not_published',
      `Post ${postId} is ${source.status}, not published; only published posts can be recycled.`,
    );
  }
  if (input.collectionId && input.collection) {
    throw new ValidationError('Send collectionId or collection, not both', [
      { path: 'collection', message: 'Remove one of them.' },
    ]);
  }
  const now = deps.now();
  const at = input.dateTime === undefined ? undefined : parseWireTime(input.dateTime, 'dateTime');
  if (at !== undefined && at <= now)
    throw new ValidationError('dateTime must be in the future', [
      { path: 'dateTime', message: 'Give a future ISO 8601 time, or omit it to use the queue.' },
    ]);
  const collection = await resolveCollection(deps, principal, input, now);
  const copy = await enqueueCopy(deps, principal.accountId, principal, source, now, at);
  if (collection) {
    await deps.repos.collections.addPost(collection.id, source.id, now);
    return {
      data: copy,
      collection: toCollectionView((await deps.repos.collections.get(principal.accountId, collection.id))!),
    };
  }
  return { data: copy };
}

async function resolveCollection(
  deps: DomainDeps,
  principal: Principal,
  input: RecycleInput,
  now: number,
): Promise<CollectionRecord | undefined> {
  if (input.collectionId) {
    const found = await deps.repos.collections.get(principal.accountId, input.collectionId);
    if (!found)
      throw new NotFoundError(
        `No collection ${input.collectionId} in this account; list them with list_collections or GET ` +
          '/v1/rest/collections.',
      );
    return found;
  }
  if (!input.collection) return undefined;
  const { name, intervalDays } = input.collection;
  if (intervalDays !== undefined && (!Number.isInteger(intervalDays) || intervalDays < 1)) {
    throw new ValidationError('collection.intervalDays must be a whole number of days, at least 1', [
      { path: 'collection.intervalDays', message: `Got ${intervalDays}` },
    ]);
  }
  const endsAt =
    input.collection.endsAt === undefined ? null : parseWireTime(input.collection.endsAt, 'collection.endsAt');
  if (endsAt !== null && endsAt <= now)
    throw new ValidationError('collection.endsAt must be in the future', [
      { path: 'collection.endsAt', message: 'Give a future time, or omit it.' },
    ]);
  const record: CollectionRecord = {
    id: newId(),
    accountId: principal.accountId,
    name: name.trim(),
    intervalDays: intervalDays ?? null,
    endsAt,
    nextRunAt: intervalDays ? now + intervalDays * DAY_MS : null,
    createdAt: now,
    postIds: [],
  };
  await deps.repos.collections.create(record);
  return record;
}

/** Inserts a copy of a published post, in the queue or at `at`; actor null when Herald does it. */
async function enqueueCopy(
  deps: DomainDeps,
  accountId: string,
  actor: Principal | null,
  source: PostRecord,
  now: number,
  at?: number,
): Promise<PostView> {
  const channel = await deps.repos.channels.get(accountId, source.channelId);
  if (!channel)
    throw new NotFoundError(`The channel of post ${source.id} is no longer connected; the post cannot be recycled.`);
  return withSlotRetry(async () => {
    const dateTime = at ?? (await nextQueueSlots(deps, [channel], now)).get(channel.id)!;
    const workspace = await deps.repos.accounts.getWorkspace(accountId, source.workspaceId);
    const copy: PostRecord = {
      ...source,
      ...freshPost(now),
      groupId: newId(),
      dateTime,
      timelineAt: dateTime,
      isScheduled: true,
      isDraft: false,
      status: 'scheduled',
      approvalStatus: reviewOfNewPost({ isDraft: false, approvalRequired: Boolean(workspace?.approvalRequired) }),
      sourceType: 'recycle',
      inQueue: at === undefined,
      recycledFromPostId: source.id,
      labels: source.labels,
      thread: unpublishedThread(source.thread),
    };
    // The copy keeps the original's labels: an evergreen label follows every round of a post.
    const labelIds = (source.labels ?? []).map((label) => label.id);
    await deps.repos.inTransaction(async (repos) => {
      await repos.posts.insertMany([copy]);
      await repos.labels.apply(accountId, copy.id, labelIds, now);
      await recordNewPostEvents(repos, [{ at: now, post: copy }]);
      await recordPostEvents({ ...deps, repos }, accountId, actor, [
        {
          postId: copy.id,
          kind: 'recycled',
          details: {
            from: source.id,
            dateTime: toWireTime(dateTime),
            inQueue: copy.inQueue,
            labelIds,
            approvalStatus: copy.approvalStatus,
            version: contentVersion(copy),
          },
        },
        { postId: source.id, kind: 'recycled', details: { copy: copy.id } },
      ]);
    });
    return toPostView(copy);
  });
}

/**
 * The periodic job: re-queues a copy of every post of each due collection, then moves its next run
 * on by its interval (skipping runs missed while Herald was down) or ends it after endsAt.
 * Returns how many copies were queued.
 */
export async function recycleDueCollections(deps: DomainDeps): Promise<number> {
  const now = deps.now();
  let queued = 0;
  for (const collection of await deps.repos.collections.listDue(now)) {
    const due = collection.nextRunAt!;
    const interval = (collection.intervalDays ?? 0) * DAY_MS;
    let next: number | null = interval > 0 ? due + interval : null;
    while (next !== null && next <= now) next += interval;
    const ended = collection.endsAt !== null && due > collection.endsAt;
    if (next !== null && collection.endsAt !== null && next > collection.endsAt) next = null;
    if (!(await deps.repos.collections.advance(collection.id, due, next))) continue; // another instance took this run
    if (ended) continue;
    for (const postId of collection.postIds) {
      const source = await deps.repos.posts.get(collection.accountId, postId);
      if (!source || source.isLive || source.status !== 'published') continue;
      try {
        await enqueueCopy(deps, collection.accountId, null, source, now);
        queued++;
      } catch (error) {
        // A channel without free slots skips this run for that post; the rest of the collection goes on.
        if (!(error instanceof ValidationError) && !(error instanceof NotFoundError)) throw error;
      }
    }
  }
  return queued;
}
