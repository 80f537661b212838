/**
 * Threads, a post's parts after the first (the post itself is part 1), as every write and read sees them:
 * - a thread is its parts in order, each with its own text and media; none, or an empty list, is a single post;
 * - a thread and a first comment are not combined: both would be replies to the post, in no order a reader could
 *   follow; the comment belongs in the last part;
 * - whether each part fits its network, and whether the network takes threads at all, is post-fit.ts's rule, checked
 *   per channel like the post's own text;
 * - a copy of a post (recycling) copies its parts' content, never their outcomes on the network;
 * - the view shows each part's link and time once the network has it, and on the part where the chain stopped, why.
 */
import type { ThreadPartRecord } from '../../db/repositories/posts.js';
import { ValidationError } from '../errors.js';
import { toWireTime } from '../time.js';

export interface ThreadPartInput {
  text?: string;
  imageUrls?: string[];
  videoUrls?: string[];
}

/** The thread a write asks for: undefined leaves it as it is, null makes the post a single post again. */
export function resolveThread(input: { thread?: ThreadPartInput[] | null }): ThreadPartRecord[] | null | undefined {
  if (input.thread === undefined) return undefined;
  if (input.thread === null || input.thread.length === 0) return null;
  return input.thread.map((part) => ({
    text: part.text ?? '',
    imageUrls: part.imageUrls ?? [],
    videoUrls: part.videoUrls ?? [],
  }));
}

/** Refuses a thread with a first comment, whichever of the two the write brought. */
export function rejectThreadWithFirstComment(
  post: { thread?: readonly ThreadPartRecord[] | null; firstComment?: unknown },
  path: 'thread' | 'firstComment',
): void {
  if (post.thread?.length && post.firstComment) {
    const message =
      'A thread cannot also have a first comment: both would be replies to the post. Put the comment in ' +
      'the last part of the thread, or remove one of them.';
    const fix =
      path === 'thread' ? 'Remove the first comment, or the thread.' : 'Remove the thread, or the first comment.';
    throw new ValidationError(message, [{ path, message: fix }]);
  }
}

/** The parts' content without anything the network gave them: for a copy that goes out anew. */
export function unpublishedThread(thread: readonly ThreadPartRecord[] | null | undefined): ThreadPartRecord[] | null {
  return thread?.length ? thread.map(({ text, imageUrls, videoUrls }) => ({ text, imageUrls, videoUrls })) : null;
}

export interface ThreadPartView {
  text: string;
  imageUrls: string[];
  videoUrls: string[];
  permalinkUrl: string | null;
  publishedAt: string | null;
  error: string | null;
}

export function threadView(thread: readonly ThreadPartRecord[] | null | undefined): ThreadPartView[] | null {
  if (!thread?.length) return null;
  return thread.map((part) => ({
    text: part.text,
    imageUrls: part.imageUrls,
    videoUrls: part.videoUrls,
    permalinkUrl: part.permalinkUrl ?? null,
    publishedAt: toWireTime(part.publishedAt ?? null),
    error: part.error ?? null,
  }));
}
