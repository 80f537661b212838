/**
 * The write-behind of published posts: results that arrive about the same time are written together, in one
 * transaction (post-outcomes.ts markManyPublished), rather than a transaction per post.
 * Rules enforced here:
 * - a post's run settles only once its result is durable: its slot frees, and its first comment exists, after
 *   the write, never before;
 * - one batch is written at a time; results that arrive meanwhile form the next batch, so batches grow with
 *   the load and a lone result waits for one turn of the event loop, not for a timer;
 * - a batch whose write fails fails each of its runs: the claims stay and the attempts stay unfinished, so once
 *   the leases expire those posts are reconciled (as after a worker that died mid-call), never sent again.
 */
import type { AttemptResult, PublishedChanges } from '../db/repositories/publishing.js';
import type { PostRecord } from '../db/repositories/posts.js';
import { markManyPublished, type PublishedResult } from './post-outcomes.js';
import type { WorkerRuntime } from './runtime.js';

// Rows per transaction: a batch this size is written in well under a millisecond per row on either database.
const MAX_BATCH = 1_000;

interface Waiting extends PublishedResult {
  settle(error?: unknown): void;
}

export class PublishedWriter {
  private waiting: Waiting[] = [];
  private writing = false;
  private scheduled = false;

  constructor(private readonly rt: WorkerRuntime) {}

  /** Resolves once the post is written as published (or was no longer this worker's to write). */
  write(post: PostRecord, changes: PublishedChanges, attempt: AttemptResult): Promise<void> {
    return new Promise((resolve, reject) => {
      this.waiting.push({
        post,
        changes,
        attempt,
        settle: (error) => (error === undefined ? resolve() : reject(error)),
      });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    // setImmediate, not a timer: the results of calls that finished in this turn join the batch, and the
    // worker's clock (which tests pin) has no say in when a result is written.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.writing = true;
    const batch = this.waiting.splice(0, MAX_BATCH);
    try {
      await markManyPublished(this.rt, batch);
      for (const result of batch) result.settle();
    } catch (error) {
      for (const result of batch) result.settle(error);
    } finally {
      this.writing = false;
      if (this.waiting.length > 0) this.schedule();
    }
  }
}
