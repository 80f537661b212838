/**
 * Queue rules (queue_pause, queue_resume, queue_clear, queue_reorder, addToQueue):
 * - A channel's queue is its posts with `inQueue` that are scheduled and not yet claimed, in time order.
 * - `addToQueue` gives each channel's post that channel's next free slot after now (a slot is taken
 *   when any unpublished post of the channel is due at that instant); it cannot be combined with
 *   `isScheduled`, `dateTime` or `saveAsDraft`. A channel without slots is refused with what to do.
 * - Pause sets the channel's `queuePaused`; the publishing engine claims nothing of a paused channel.
 * - Resume clears it; queued posts whose slot passed meanwhile move, in queue order, to the next free
 *   slots after now, so they go out one slot at a time rather than all at once. A post scheduled at a
 *   time of its own (not in the queue) keeps it: if it passed during the pause, the post goes out on resume.
 * - Reorder moves one queued post to a position (1 = next, past the end = last); the set of times stays and the posts
 *   follow it.
 * - Clear only reports the posts it would remove unless `dryRun` is false.
 * - A slot holds one queued post (a unique index): a request that loses a race for a slot retries
 *   with the next free one; a reorder or resume that collides answers 409 to be sent again.
 * - Every move is recorded in the post's history; everything is scoped to the caller's account.
 */
import type { components } from '../../../generated/rest/openapi-types.js';
import type { ChannelRecord } from '../../db/repositories/channels.js';
import type { PostRecord } from '../../db/repositories/posts.js';
import { isQueueSlotConflict } from '../../db/repositories/team-posts.js';
import type { DomainDeps } from '../deps.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import type { Principal } from '../principal.js';
import { recordPostEvents, type PostChange } from '../posts/post-history.js';
import { recordChannelEvent } from '../events/events.js';
import { writablePost } from '../posts/writable-post.js';
import { toWireTime } from '../time.js';
import { freeSlots, parseSlots } from './slots.js';

export type ChannelScheduleView = components['schemas']['ChannelSchedule'];
const NEXT_FREE_SHOWN = 5;
/** Each retry sees the slot the winner took, so this bounds how many racers one request outlasts. */
const SLOT_ATTEMPTS = 8;

function slotTaken(): ConflictError {
  return new ConflictError(
    'queue_slot_taken',
    'Other requests took the queue slots at the same moment; send the request again.',
  );
}

/** Runs a write that places posts in queue slots; losing a race for a slot becomes a 409 to retry. */
export async function placingInQueue<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw isQueueSlotConflict(error) ? slotTaken() : error;
  }
}

/** Like placingInQueue, but chooses again after a lost race (the work must recompute its slots). */
export async function withSlotRetry<T>(work: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isQueueSlotConflict(error)) throw error;
      if (attempt >= SLOT_ATTEMPTS) throw slotTaken();
    }
  }
}

async function requireChannel(deps: DomainDeps, principal: Principal, channelId: string): Promise<ChannelRecord> {
  const channel = await deps.repos.channels.get(principal.accountId, channelId);
  if (!channel)
    throw new NotFoundError(
      `No channel ${channelId} in this account; list channel ids with GET /v1/rest/channels or get_channels.`,
    );
  return channel;
}

/** Refuses `addToQueue` together with an explicit time or a draft. */
export function rejectQueueConflicts(input: {
  addToQueue?: boolean;
  isScheduled?: boolean;
  dateTime?: string;
  saveAsDraft?: boolean;
}): void {
  if (!input.addToQueue) return;
  const clashing = (['isScheduled', 'dateTime', 'saveAsDraft'] as const).filter((f) => input[f] !== undefined);
  if (clashing.length > 0) {
    throw new ValidationError(
      `addToQueue cannot be combined with ${clashing.join(', ')}: the queue chooses the time. Send addToQueue alone, ` +
        'or a time without it.',
      clashing.map((f) => ({ path: f, message: 'Remove this field, or remove addToQueue.' })),
    );
  }
}

/** The next free slot of each channel (several channels: each its own queue). */
export async function nextQueueSlots(
  deps: DomainDeps,
  channels: readonly ChannelRecord[],
  now: number,
): Promise<Map<string, number>> {
  const result = new Map<string, number>();
  for (const channel of channels) {
    const [slot] = await freeSlotsOf(deps, channel, now, 1);
    if (slot === undefined) {
      throw new ValidationError(
        `Channel ${channel.id} has no free queue slot: set its weekly slots with PUT ` +
          `/v1/rest/channels/${channel.id}/schedule (or herald channel slots), or give the post a time.`,
        [{ path: 'addToQueue', message: `Channel ${channel.id} has no posting schedule.` }],
      );
    }
    result.set(channel.id, slot);
  }
  return result;
}

async function freeSlotsOf(
  deps: DomainDeps,
  channel: ChannelRecord,
  after: number,
  count: number,
  extraTaken: Iterable<number> = [],
): Promise<number[]> {
  const taken = await deps.repos.teamPosts.takenTimes(channel.accountId, channel.id, after);
  for (const t of extraTaken) taken.add(t);
  return freeSlots(channel.timezone, channel.slots ?? [], after, taken, count);
}

export async function getSchedule(
  deps: DomainDeps,
  principal: Principal,
  channelId: string,
): Promise<ChannelScheduleView> {
  const channel = await requireChannel(deps, principal, channelId);
  const queued = await deps.repos.teamPosts.listQueued(principal.accountId, channelId);
  return {
    channelId: channel.id,
    timezone: channel.timezone,
    slots: channel.slots ?? [],
    queuePaused: channel.queuePaused,
    nextFreeSlots: (await freeSlotsOf(deps, channel, deps.now(), NEXT_FREE_SHOWN)).map((t) => toWireTime(t)),
    queued: queued.map((p) => ({ postId: p.id, dateTime: toWireTime(p.dateTime ?? p.timelineAt), text: p.text })),
  };
}

export async function setSchedule(
  deps: DomainDeps,
  principal: Principal,
  channelId: string,
  slots: readonly { day: string; time: string }[],
): Promise<ChannelScheduleView> {
  await requireChannel(deps, principal, channelId);
  await deps.repos.channels.setSlots(principal.accountId, channelId, parseSlots(slots));
  return getSchedule(deps, principal, channelId);
}

export async function pauseQueue(
  deps: DomainDeps,
  principal: Principal,
  channelId: string,
): Promise<ChannelScheduleView> {
  const channel = await requireChannel(deps, principal, channelId);
  await deps.repos.inTransaction(async (repos) => {
    await repos.channels.setQueuePaused(principal.accountId, channelId, true);
    await recordChannelEvent(repos, deps.now(), 'queue.paused', { ...channel, queuePaused: true });
  });
  return getSchedule(deps, principal, channelId);
}

export async function resumeQueue(
  deps: DomainDeps,
  principal: Principal,
  channelId: string,
): Promise<ChannelScheduleView> {
  const channel = await requireChannel(deps, principal, channelId);
  const now = deps.now();
  const overdue = (await deps.repos.teamPosts.listQueued(principal.accountId, channelId)).filter(
    (p) => (p.dateTime ?? 0) <= now,
  );
  // Move before unpausing, so that the engine never sees the overdue posts on a running queue.
  const slots = await freeSlotsOf(deps, channel, now, overdue.length);
  const changes: PostChange[] = [];
  await placingInQueue(() =>
    deps.repos.inTransaction(async (repos) => {
      for (const [i, post] of overdue.entries()) {
        const slot = slots[i];
        if (slot === undefined) {
          throw new ValidationError(
            `Channel ${channelId} has too few queue slots to take the ${overdue.length} posts that waited while ` +
              'paused; add slots, then resume again.',
          );
        }
        const moved = await repos.teamPosts.moveToSlot(
          principal.accountId,
          post.id,
          slot,
          now,
          post.dateTime ?? undefined,
        );
        if (moved)
          changes.push({
            postId: post.id,
            kind: 'queue_moved',
            details: { from: toWireTime(post.dateTime), to: toWireTime(slot), reason: 'resumed' },
          });
      }
      await recordPostEvents({ ...deps, repos }, principal.accountId, principal, changes);
    }),
  );
  await deps.repos.inTransaction(async (repos) => {
    await repos.channels.setQueuePaused(principal.accountId, channelId, false);
    await recordChannelEvent(repos, deps.now(), 'queue.resumed', { ...channel, queuePaused: false });
  });
  return getSchedule(deps, principal, channelId);
}

export async function clearQueue(
  deps: DomainDeps,
  principal: Principal,
  channelId: string,
  dryRun: boolean,
): Promise<{ dryRun: boolean; postIds: string[] }> {
  await requireChannel(deps, principal, channelId);
  const queued = await deps.repos.teamPosts.listQueued(principal.accountId, channelId);
  if (dryRun) return { dryRun, postIds: queued.map((p) => p.id) };
  const removed: string[] = [];
  await deps.repos.inTransaction(async (repos) => {
    for (const post of queued) {
      if (await repos.teamPosts.stillScheduled(principal.accountId, post.id)) {
        await repos.posts.delete(principal.accountId, post.id);
        removed.push(post.id);
      }
    }
    await recordPostEvents(
      { ...deps, repos },
      principal.accountId,
      principal,
      removed.map((postId) => ({ postId, kind: 'queue_cleared' })),
    );
  });
  return { dryRun, postIds: removed };
}

export async function reorderQueue(
  deps: DomainDeps,
  principal: Principal,
  channelId: string,
  postId: string,
  position: number,
): Promise<ChannelScheduleView> {
  await requireChannel(deps, principal, channelId);
  const post = await writablePost(deps, principal, postId);
  const queued = await deps.repos.teamPosts.listQueued(principal.accountId, channelId);
  const from = queued.findIndex((p) => p.id === post.id);
  if (from < 0) {
    throw new ConflictError(
      'post_not_queued',
      `Post ${postId} is not waiting in the queue of channel ${channelId}; only queued posts (created with ` +
        'addToQueue) can be reordered.',
    );
  }
  if (!Number.isInteger(position) || position < 1) {
    throw new ValidationError('position must be a whole number from 1 (next to go out)', [
      { path: 'position', message: `Got ${position}` },
    ]);
  }
  const times = queued.map((p) => p.dateTime!);
  const order: PostRecord[] = [...queued];
  order.splice(from, 1);
  order.splice(Math.min(position - 1, order.length), 0, post);
  const now = deps.now();
  const moving = order
    .map((p, i) => ({ post: p, to: times[i], parked: -(i + 1) }))
    .filter((m) => m.post.dateTime !== m.to);
  const changes: PostChange[] = moving.map((m) => ({
    postId: m.post.id,
    kind: 'queue_moved',
    details: { from: toWireTime(m.post.dateTime), to: toWireTime(m.to), reason: 'reordered' },
  }));
  const changed = () =>
    new ConflictError(
      'queue_changed',
      `The queue of channel ${channelId} changed while reordering (a post moved or started publishing); ` +
        'read it again and retry.',
    );
  await placingInQueue(() =>
    deps.repos.inTransaction(async (repos) => {
      // Two steps, because each slot holds one queued post: park the moving posts on distinct
      // placeholder times (negative, never a real slot), then put each on its new slot.
      for (const m of moving) {
        if (
          !(await repos.teamPosts.parkForReorder(
            principal.accountId,
            m.post.id,
            m.post.dateTime ?? undefined,
            m.parked,
          ))
        )
          throw changed();
      }
      for (const m of moving) {
        if (!(await repos.teamPosts.moveToSlot(principal.accountId, m.post.id, m.to, now, m.parked))) throw changed();
      }
      await recordPostEvents({ ...deps, repos }, principal.accountId, principal, changes);
    }),
  );
  return getSchedule(deps, principal, channelId);
}
