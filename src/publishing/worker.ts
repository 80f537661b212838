/**
 * The publishing worker: the loop that drives the steps. The database is the queue; any number of workers
 * (processes, machines) share it.
 *
 * Rules enforced here:
 * - a due post is claimed with a lease; every later write is guarded by the claim, so a worker that lost
 *   its lease changes nothing, and a crashed worker's posts are reclaimed once its lease expires;
 * - it ticks back to back while there is work, else every pollMs; it syncs live posts, looks again at
 *   unconfirmed posts and re-queues recycling collections every syncIntervalMs; every preflightPollMs it starts
 *   rehearsing the posts whose slots come within PREFLIGHT_MINUTES (preflight-step.ts) beside the loop, one round at
 *   a time, so a slow link or network never holds up a due post;
 * - at most `concurrency` posts are in flight at once, refilled as they finish (a pipeline, not batch by batch);
 * - each claim starts as a batch (channels and interrupted attempts read once, attempts recorded in one
 *   transaction), and published posts are written in batches (write-behind.ts);
 * - stop(): claims nothing more and finishes what is in flight (a tick() stopped midway puts its unstarted posts back);
 * - a batch that cannot start is logged with the reason and its claims put back; the loop goes on after pollMs, and
 *   any failure of a round is logged, never ends the loop.
 * The steps: publish-step.ts (a due post), preflight-step.ts (a rehearsal before a post's slot), reconciliation.ts
 * (unknown outcomes), comment-step.ts (first comments), thread-step.ts (the parts of a thread), webhook-delivery.ts
 * (events to webhook endpoints),
 * live-sync.ts (posts found on the network); runtime.ts holds what they share.
 */
import { RELEASING_APPROVALS } from '../domain/approvals/approval-holds.js';
import { recycleDueCollections } from '../domain/recycling/recycling.js';
import { commentOne } from './comment-step.js';
import { threadOne } from './thread-step.js';
import { syncChannel } from './live-sync.js';
import { reviewCredentialExpiry } from '../domain/networks/credential-expiry.js';
import { NetworkError } from '../domain/networks/connector.js';
import { publishBatch } from './publish-step.js';
import { rehearseDue } from './preflight-step.js';
import { reconcileUnconfirmed } from './reconciliation.js';
import { deliverOne, deliveryLeaseMs } from './webhook-delivery.js';
import type { ClaimedPost } from '../db/repositories/publishing.js';
import {
  DEFAULT_WORKER_OPTIONS,
  newWorkerId,
  WorkerRuntime,
  type WorkerContext,
  type WorkerOptions,
} from './runtime.js';

export type { WorkerContext, WorkerOptions };

export interface TickResult {
  claimed: number;
  comments: number;
  deliveries: number;
}

export class PublishingWorker {
  readonly options: WorkerOptions;
  private readonly rt: WorkerRuntime;
  private stopping = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private nextSyncAt = 0;
  private nextRehearsalAt = 0;
  /** The round of rehearsals running beside the loop, if one is. */
  private rehearsing: Promise<void> | undefined;
  /** Posts the pipeline has started and not finished. */
  private readonly running = new Set<Promise<void>>();
  private slotWaiter: (() => void) | undefined;

  constructor(
    private readonly ctx: WorkerContext,
    options: Partial<WorkerOptions> = {},
  ) {
    this.options = { ...DEFAULT_WORKER_OPTIONS, workerId: newWorkerId(), ...options };
    this.rt = new WorkerRuntime(ctx, this.options);
  }

  private get repo() {
    return this.rt.repo;
  }

  private now(): number {
    return this.rt.now();
  }

  /**
   * Runs until stop(). Posts are published as a pipeline: whenever enough of the `concurrency` slots are free,
   * due posts are claimed for them and started at once, so a slow network keeps hundreds of calls waiting rather
   * than a batch waiting for its slowest call. First comments and webhook deliveries follow each claim; the loop
   * goes on at once while there is work, else every pollMs or when a slot frees; it syncs every syncIntervalMs.
   */
  start(): void {
    if (this.loop) return;
    this.loop = (async () => {
      while (!this.stopping) {
        let busy = false;
        try {
          const claimed = await this.refill();
          if (claimed === 'no room') {
            await this.slotFreed();
            continue;
          }
          const { comments, deliveries } = await this.followUps();
          busy = claimed === 'filled' || comments >= this.options.batchSize || deliveries >= this.options.batchSize;
          if (this.now() >= this.nextRehearsalAt && !this.rehearsing) {
            this.nextRehearsalAt = this.now() + this.options.preflightPollMs;
            this.rehearsing = this.rehearse()
              .catch((error) => this.ctx.logger.error('rehearsing scheduled posts failed', error))
              .finally(() => {
                this.rehearsing = undefined;
              });
          }
          if (this.now() >= this.nextSyncAt) {
            this.nextSyncAt = this.now() + this.options.syncIntervalMs;
            await this.sync();
            // Recycling collections re-queue on a scale of days: the sync cadence is ample.
            await recycleDueCollections(this.ctx.deps);
          }
        } catch (error) {
          this.ctx.logger.error('publishing worker tick failed', error);
        }
        if (!busy && !this.stopping) await this.sleep(this.options.pollMs);
      }
      await Promise.all([...this.running, this.rehearsing]);
    })();
  }

  /** Graceful: claims nothing more and lets in-flight posts finish (every claimed post was started at once). */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    this.slotWaiter?.();
    await this.loop;
  }

  /**
   * Claims due posts for the free slots and starts them without waiting. Claims only once a quarter of a batch
   * is free, so a busy worker claims in batches rather than one post per finished call.
   */
  private async refill(): Promise<'filled' | 'partly' | 'no room'> {
    const wanted = Math.min(this.options.concurrency - this.running.size, this.options.batchSize);
    if (this.running.size > 0 && wanted < this.claimThreshold()) return 'no room';
    const claimed = await this.repo.claimDue(
      this.options.workerId,
      this.now(),
      this.options.leaseMs,
      wanted,
      RELEASING_APPROVALS,
    );
    const { runs, failed } = await this.startBatch(claimed);
    for (const started of runs) {
      const run: Promise<void> = started.finally(() => {
        this.running.delete(run);
        if (this.options.concurrency - this.running.size >= this.claimThreshold()) this.slotWaiter?.();
      });
      this.running.add(run);
    }
    // A batch that failed waits pollMs like an idle worker, so a lasting fault is not retried in a tight loop.
    return claimed.length === wanted && !failed ? 'filled' : 'partly';
  }

  private claimThreshold(): number {
    return Math.max(1, Math.ceil(Math.min(this.options.batchSize, this.options.concurrency) / 4));
  }

  /** Resolves once enough posts in flight have finished to claim again (or the worker is stopping). */
  private slotFreed(): Promise<void> {
    return new Promise((resolve) => {
      this.slotWaiter = () => {
        this.slotWaiter = undefined;
        resolve();
      };
      // A post may have finished between the refill and now.
      if (this.stopping || this.options.concurrency - this.running.size >= this.claimThreshold()) this.slotWaiter();
    });
  }

  /**
   * Starts claimed posts as a batch (publish-step.ts); each run settles once its post's outcome is written. A
   * batch that cannot start (the database refused its reads or its attempts) started nothing: it says why and puts
   * its claims back rather than leave them `publishing` until their leases run out.
   */
  private async startBatch(claimed: readonly ClaimedPost[]): Promise<{ runs: Promise<void>[]; failed: boolean }> {
    const failed = (error: unknown) => {
      // The claim stays; its lease expires and the post is reconsidered (reconciled if an attempt started).
      this.ctx.logger.error('publishing a post failed', error);
    };
    try {
      return { runs: (await publishBatch(this.rt, claimed)).map((run) => run.catch(failed)), failed: false };
    } catch (error) {
      this.ctx.logger.error(
        `starting a batch of ${claimed.length} claimed posts failed; putting them back in the queue`,
        error,
      );
      try {
        await this.repo.release(
          this.options.workerId,
          claimed.map(({ post }) => post.id),
        );
      } catch (releaseError) {
        this.ctx.logger.error(
          'putting back the claimed posts failed too; they are taken again once their leases expire',
          releaseError,
        );
      }
      return { runs: [], failed: true };
    }
  }

  /**
   * One round, waited for whole (tests and the CLI drive the worker this way): claim due posts and publish them, then
   * follow-ups.
   */
  async tick(): Promise<TickResult> {
    const claimed = await this.repo.claimDue(
      this.options.workerId,
      this.now(),
      this.options.leaseMs,
      this.options.batchSize,
      RELEASING_APPROVALS,
    );
    const unstarted: string[] = [];
    for (let i = 0; i < claimed.length; i += this.options.concurrency) {
      const batch = claimed.slice(i, i + this.options.concurrency);
      if (this.stopping) unstarted.push(...batch.map(({ post }) => post.id));
      else await Promise.all((await this.startBatch(batch)).runs);
    }
    await this.repo.release(this.options.workerId, unstarted);
    return { claimed: claimed.length, ...(await this.followUps()) };
  }

  /** Due first comments, due threads, then due webhook deliveries. */
  private async followUps(): Promise<{ comments: number; deliveries: number }> {
    const steps = this.stopping
      ? []
      : await this.rt.commentSteps.claimDueComments(
          this.options.workerId,
          this.now(),
          this.options.leaseMs,
          this.options.batchSize,
        );
    await pool(steps, this.options.concurrency, async (step) => {
      try {
        await commentOne(this.rt, step);
      } catch (error) {
        this.ctx.logger.error('making a first comment failed', error);
      }
    });
    const { workerId, leaseMs, batchSize } = this.options;
    const threadSteps = this.rt.ctx.deps.repos.threadSteps;
    const threads = this.stopping ? [] : await threadSteps.claimDue(workerId, this.now(), leaseMs, batchSize);
    await pool(threads, this.options.concurrency, async (step) => {
      try {
        await threadOne(this.rt, step);
      } catch (error) {
        // The claim stays; its lease expires and the chain resumes after its last part written.
        this.ctx.logger.error('publishing a thread failed', error);
      }
    });
    const deliveries = this.stopping
      ? []
      : await this.rt.ctx.deps.repos.webhooks.claimDue(
          this.options.workerId,
          this.now(),
          deliveryLeaseMs(this.options.leaseMs),
          this.options.batchSize,
        );
    await pool(deliveries, this.options.concurrency, async (claimedDelivery) => {
      try {
        await deliverOne(this.rt, claimedDelivery);
      } catch (error) {
        // The claim stays; its lease expires and the delivery is tried again.
        this.ctx.logger.error('delivering a webhook failed', error);
      }
    });
    return { comments: steps.length, deliveries: deliveries.length };
  }

  /** Rehearses the posts whose slots are near (preflight-step.ts), a batch at a time, until none is left to take. */
  async rehearse(): Promise<void> {
    while (!this.stopping && (await rehearseDue(this.rt, this.options.batchSize)) === this.options.batchSize);
  }

  /**
   * Live-post sync over every channel (credentials near an expiry they cannot be renewed past reviewed first), and
   * another look for unconfirmed posts.
   */
  async sync(): Promise<void> {
    await reconcileUnconfirmed(this.rt);
    let after = '';
    for (;;) {
      const channels = await this.rt.ctx.deps.repos.channels.pageAcrossAccounts(after, 100);
      for (const channel of channels) {
        if (this.stopping) return;
        try {
          const connector = this.rt.ctx.networks.get(channel.network);
          if (connector) await reviewCredentialExpiry(this.rt.ctx.deps, channel, connector);
          await syncChannel(this.rt, channel);
        } catch (error) {
          // A network's refusal (no credentials, a revoked token) is the channel's state, said in one line; anything
          // else is a bug, logged with its stack.
          if (error instanceof NetworkError) {
            this.ctx.logger.warn('live-post sync failed', {
              channelId: channel.id,
              network: channel.network,
              reason: error.message,
            });
          } else {
            this.ctx.logger.error('live-post sync failed', error);
          }
        }
      }
      if (channels.length < 100) return;
      after = channels[channels.length - 1].id;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = this.ctx.deps.timers.after(ms, done);
      function done() {
        timer.cancel();
        resolve();
      }
      this.wake = done;
    });
  }
}

/** Runs work over items with at most `size` at once. */
async function pool<T>(items: readonly T[], size: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const runners = Array.from({ length: Math.min(size, items.length) }, async () => {
    while (next < items.length) await work(items[next++]);
  });
  await Promise.all(runners);
}
