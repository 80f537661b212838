import { createLogger, type Logger } from '../../src/logger.js';
import { libraryFiles } from '../../src/domain/media/library-files.js';
import { safeMediaChecker, type MediaChecker } from '../../src/publishing/media-check.js';
import { createWorker } from '../../src/publishing/engine.js';
import { NOT_MADE, type AttemptLookup } from '../../src/domain/networks/connector.js';
import { NetworkRegistry } from '../../src/publishing/networks/registry.js';
import { SandboxNetwork } from '../../src/publishing/networks/sandbox.js';
import type { PublishingWorker, WorkerOptions } from '../../src/publishing/worker.js';
import type { TestHerald } from '../support/herald.js';
import { ManualClock } from '../support/manual-clock.js';

/** Every media URL passes, so worker tests need no HTTP server; media-check tests use their own. */
export const directMedia: MediaChecker = async () => ({ direct: true });

/** The check a running Herald makes: its own library from storage, any other URL through the SSRF guard. */
export function heraldMediaChecker(
  t: TestHerald,
  allowHosts: readonly string[] = t.config.outboundAllowHosts,
): MediaChecker {
  return safeMediaChecker(allowHosts, libraryFiles(t.deps));
}

/**
 * The sandbox as a network whose lookup can miss a post (matched by text, or keys it forgets): not found is not
 * "not made", so an interrupted attempt it cannot find leaves the post unconfirmed rather than retried.
 */
export function cannotTellNetworks(t: TestHerald): NetworkRegistry {
  class CannotTell extends SandboxNetwork {
    override async findPublished(lookup: AttemptLookup) {
      const found = await super.findPublished(lookup);
      return found === NOT_MADE ? undefined : found;
    }
  }
  return new NetworkRegistry().register('sandbox', new CannotTell(t.deps.repos.sandbox, t.url));
}

/** A worker over the test Herald's database, driven by tick() rather than timers. */
export function testWorker(
  t: TestHerald,
  options: Partial<WorkerOptions> = {},
  networks?: NetworkRegistry,
  checkMedia: MediaChecker = directMedia,
  logger: Logger = createLogger({ quiet: true }),
): PublishingWorker {
  return createWorker(t.deps, logger, {
    networks,
    checkMedia,
    options: { baseBackoffMs: 1_000, ...options },
  });
}

/** Polls until `check` returns a value (not undefined), or fails after a generous timeout. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Pins the test Herald's clock (deps.now) and its timers (deps.timers), which the worker reads too. */
export function pinClock(t: TestHerald, iso: string): ManualClock {
  const clock = new ManualClock(Date.parse(iso));
  t.deps.now = () => clock.now();
  t.deps.timers = clock;
  return clock;
}

/**
 * A worker that claimed the due posts, recorded attempt 1 of each (its lease runs 1 s), and died before the
 * network answered. Returns the posts it claimed.
 */
export async function dieMidAttempt(t: TestHerald, clock: ManualClock): Promise<string[]> {
  const claimed = await t.deps.repos.publishing.claimDue('dead-worker', clock.now(), 1_000, 10, ['APPROVED']);
  await t.deps.repos.publishing.startAttempts(
    'dead-worker',
    claimed.map(({ post }) => ({
      postId: post.id,
      accountId: post.accountId,
      kind: 'publish' as const,
      number: 1,
      idempotencyKey: `${post.id}:1`,
      workerId: 'dead-worker',
      startedAt: clock.now(),
      finishedAt: null,
      outcome: null,
      detail: null,
    })),
    clock.now() + 1_000,
  );
  return claimed.map(({ post }) => post.id);
}

/** How many of an account's posts are in this state (watching a queue drain). */
export async function countPostsByStatus(t: TestHerald, accountId: string, status: string): Promise<number> {
  const [row] = await t.herald
    .db('posts')
    .where({ account_id: accountId, status })
    .count<{ n: number | string }[]>({ n: '*' });
  return Number(row.n);
}

/** How many publish attempts an account's posts have had. */
export async function countPublishAttempts(t: TestHerald, accountId: string): Promise<number> {
  const [row] = await t.herald
    .db('publish_attempts')
    .where({ account_id: accountId, kind: 'publish' })
    .count<{ n: number | string }[]>({ n: '*' });
  return Number(row.n);
}
