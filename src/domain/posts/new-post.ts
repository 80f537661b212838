/**
 * What every new post record starts as, whichever path makes it (create, bulk create, recycling): a new id,
 * no outcome from any network yet (no network id, permalink, metrics, error or publish time), no review
 * yet, and created now. Callers add what the post is: its channel, text, time, status and approval hold.
 */
import type { PostRecord } from '../../db/repositories/posts.js';
import { newId } from '../ids.js';

type Fresh = Pick<
  PostRecord,
  | 'id'
  | 'isLive'
  | 'networkPostId'
  | 'permalinkUrl'
  | 'metrics'
  | 'lastError'
  | 'publishedAt'
  | 'createdAt'
  | 'updatedAt'
  | 'reviewerUserId'
  | 'rejectionReason'
>;

export function freshPost(now: number): Fresh {
  return {
    id: newId(),
    isLive: false,
    networkPostId: null,
    permalinkUrl: null,
    metrics: null,
    lastError: null,
    publishedAt: null,
    createdAt: now,
    updatedAt: now,
    reviewerUserId: null,
    rejectionReason: null,
  };
}
