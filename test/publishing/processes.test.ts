import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import type { PostRecord } from '../../src/db/repositories/posts.js';
import { newId } from '../../src/domain/ids.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { countPostsByStatus, countPublishAttempts, eventually } from './support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

/**
 * Real `herald worker` processes over one database: killed mid-publish, racing each other, stopped with
 * SIGTERM. Each publishes every post exactly once (counted on the sandbox, where a duplicate would show).
 */
describe('publishing: worker processes', function () {
  this.timeout(240_000);
  let t: TestHerald;
  let a: SeededAccount;
  const children: ChildProcess[] = [];
  beforeEach(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 2 });
  });
  afterEach(async () => {
    for (const child of children.splice(0))
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await t.close();
  });

  function startWorker(env: Record<string, string> = {}): ChildProcess {
    const child = spawn(process.execPath, [HERALD_CLI, 'worker'], {
      env: {
        ...process.env,
        DATA_DIR: t.config.dataDir,
        DATABASE_URL: t.config.databaseUrl ?? '',
        BASE_URL: t.url,
        WORKER_POLL_MS: '100',
        WORKER_LEASE_SECONDS: '2',
        SYNC_INTERVAL_SECONDS: '3600',
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    children.push(child);
    let output = '';
    // The log goes to stderr, passed on as before and watched for the worker's start.
    child.stderr!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      process.stderr.write(chunk);
    });
    running.set(child, () => output.includes('publishing worker running'));
    return child;
  }
  const running = new Map<ChildProcess, () => boolean>();
  /** Once it says so, the worker has its SIGTERM handler (a signal before that would just kill it). */
  const started = (child: ChildProcess) =>
    eventually(async () => (running.get(child)!() ? true : undefined), 'the worker to start', 60_000);
  const exited = (child: ChildProcess) =>
    new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null)
        resolve({ code: child.exitCode, signal: child.signalCode });
      else child.once('exit', (code, signal) => resolve({ code, signal }));
    });
  const status = async (id: string) => (await t.deps.repos.posts.get(a.accountId, id))?.status;
  const sandboxCount = async () =>
    (await t.deps.repos.sandbox.countOnChannel(a.channelIds[0])) +
    (await t.deps.repos.sandbox.countOnChannel(a.channelIds[1]));

  it('a worker killed mid-publish: another one reconciles its posts, each published exactly once', async () => {
    await t.deps.repos.sandbox.setFailure(a.accountId, a.channelIds[0], 'slow_after_post', 3);
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      const created = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [a.channelIds[0]], text: `Slow ${n}` },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      ids.push(created.body.data[0].id);
    }
    assert.equal(ids.length, 3);

    const first = startWorker();
    // The sandbox has made all three posts and is holding its answers: the worker is mid-publish.
    await eventually(
      async () => ((await sandboxCount()) === 3 ? true : undefined),
      'the sandbox to receive three posts',
      60_000,
    );
    for (const id of ids) assert.equal(await status(id), 'publishing');
    first.kill('SIGKILL');
    await exited(first);

    const second = startWorker();
    for (const id of ids)
      await eventually(
        async () => ((await status(id)) === 'published' ? true : undefined),
        `post ${id} to be published`,
        60_000,
      );
    assert.equal(await sandboxCount(), 3, 'no post was published twice');
    for (const id of ids) {
      const attempts = await t.deps.repos.publishAttempts.attempts(a.accountId, id);
      assert.deepEqual(
        attempts.map((x) => x.outcome),
        ['reconciled'],
        id,
      );
    }
    second.kill('SIGTERM');
    assert.deepEqual(await exited(second), { code: 0, signal: null }, 'SIGTERM stops the worker cleanly');
  });

  it(
    'a worker killed before the network took its posts: ' +
      'another one tries them again, each published exactly once, none unconfirmed',
    async () => {
      const ids: string[] = [];
      for (const n of [1, 2, 3, 4]) {
        const created = await t.api('POST', '/v1/rest/posts', {
          token: a.apiKey,
          body: { channelIds: [a.channelIds[n % 2]], text: `Never sent ${n}` },
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        ids.push(created.body.data[0].id);
      }
      // A slow network: the attempts are recorded, then the calls wait a minute before the sandbox makes the post.
      const first = startWorker({ SANDBOX_LATENCY_MS: '60000' });
      await eventually(
        async () => ((await countPublishAttempts(t, a.accountId)) === 4 ? true : undefined),
        'four attempts to be recorded',
        60_000,
      );
      first.kill('SIGKILL');
      await exited(first);
      assert.equal(await sandboxCount(), 0, 'the network never saw them');

      const second = startWorker();
      for (const id of ids)
        await eventually(
          async () => ((await status(id)) === 'published' ? true : undefined),
          `post ${id} to be published`,
          60_000,
        );
      assert.equal(await sandboxCount(), 4, 'each post reached the network once');
      for (const id of ids) {
        const attempts = await t.deps.repos.publishAttempts.attempts(a.accountId, id);
        assert.deepEqual(
          attempts.map((x) => [x.number, x.outcome]),
          [
            [1, 'retryable'],
            [2, 'published'],
          ],
          id,
        );
      }
      second.kill('SIGTERM');
      assert.deepEqual(await exited(second), { code: 0, signal: null });
    },
  );

  it('two workers racing over 1,000 due posts publish each exactly once, and stop cleanly on SIGTERM', async () => {
    const now = Date.now();
    const records: PostRecord[] = Array.from({ length: 1000 }, (_, i) => ({
      id: newId(),
      accountId: a.accountId,
      workspaceId: a.workspaceId,
      channelId: a.channelIds[i % 2],
      groupId: null,
      text: `Race ${i}`,
      dateTime: now - 1000,
      timelineAt: now - 1000,
      isScheduled: true,
      isDraft: false,
      isLive: false,
      status: 'scheduled',
      approvalStatus: null,
      type: 'text',
      sourceType: 'api',
      imageUrls: [],
      videoUrls: [],
      firstComment: null,
      channelOptions: null,
      networkPostId: null,
      permalinkUrl: null,
      metrics: null,
      lastError: null,
      publishedAt: null,
      createdAt: now,
      updatedAt: now,
    }));
    // Both running before the posts are due, so they race for
    // them (one alone drains 1,000 posts in well under a second).
    const workers = [startWorker(), startWorker()];
    for (const worker of workers) await started(worker);
    for (let i = 0; i < records.length; i += 100) await t.deps.repos.posts.insertMany(records.slice(i, i + 100));
    await eventually(
      async () => ((await countPostsByStatus(t, a.accountId, 'published')) === 1000 ? true : undefined),
      '1,000 posts to be published',
      180_000,
    );
    assert.equal(await sandboxCount(), 1000, 'each post reached the network once');
    assert.equal(await countPublishAttempts(t, a.accountId), 1000, 'one attempt per post: none was tried twice');
    for (const worker of workers) worker.kill('SIGTERM');
    for (const worker of workers) assert.deepEqual(await exited(worker), { code: 0, signal: null });
  });
});
